/** Daily message counts for the console's overview (GET /stats). */
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.js';

export interface DailyCountRow {
  /** the day's start (UTC ms) */
  day: number;
  lineId: string | null;
  direction: 'outbound' | 'inbound';
  failed: boolean;
  count: number;
}

const DAY_MS = 86_400_000;

export function statsRepo(db: Kysely<DB>) {
  return {
    /** Messages since `sinceMs`, counted per UTC day, line, direction and failure. */
    async dailyCounts(tenantId: string, sinceMs: number): Promise<DailyCountRow[]> {
      // Integer division of epoch ms: one expression on SQLite and PostgreSQL (bigint / bigint).
      const day = sql<number>`(sent_at / ${sql.lit(DAY_MS)}) * ${sql.lit(DAY_MS)}`;
      const rows = await db
        .selectFrom('messages')
        .select([day.as('day'), 'line_id', 'direction', sql<number>`case when status = 'failed' then 1 else 0 end`.as('failed'), sql<number>`count(*)`.as('n')])
        .where('tenant_id', '=', tenantId)
        .where('sent_at', '>=', sinceMs)
        .groupBy([day, 'line_id', 'direction', sql`case when status = 'failed' then 1 else 0 end`])
        .execute();
      return rows.map((r) => ({ day: Number(r.day), lineId: r.line_id, direction: r.direction, failed: Number(r.failed) === 1, count: Number(r.n) }));
    },
    /** Delivery outcomes of events since `sinceMs`, and the oldest event still pending. */
    async deliveryHealth(tenantId: string, sinceMs: number): Promise<{ delivered: number; failed: number; pending: number; oldestPendingAt: number | null }> {
      const rows = await db
        .selectFrom('events')
        .select(['status', sql<number>`count(*)`.as('n'), sql<number>`min(created_at)`.as('oldest')])
        .where('tenant_id', '=', tenantId)
        .where('created_at', '>=', sinceMs)
        .groupBy('status')
        .execute();
      const of = (s: string) => rows.find((r) => r.status === s);
      const pending = of('pending');
      return { delivered: Number(of('delivered')?.n ?? 0), failed: Number(of('failed')?.n ?? 0), pending: Number(pending?.n ?? 0), oldestPendingAt: pending ? Number(pending.oldest) : null };
    },
  };
}
