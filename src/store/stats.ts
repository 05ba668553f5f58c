/** Daily message counts for the console's overview (GET /stats). */
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.js';

export interface DailyCountRow {
  /** which day: an index into the `days` given to dailyCounts */
  day: number;
  lineId: string | null;
  direction: 'outbound' | 'inbound';
  failed: boolean;
  count: number;
}

export function statsRepo(db: Kysely<DB>) {
  return {
    /**
     * Messages per day, line, direction and failure. `days`: the days' first instants (UTC ms),
     * ascending; `end`: the instant after the last one. A message belongs to the last day that
     * begins at or before it; messages before the first day or at/after `end` are left out.
     * The days may be of any length (a project's local days of 23 or 25 hours): the caller
     * computes them, so SQLite and PostgreSQL count the same without time-zone SQL.
     *
     * One statement: the tenant's messages in [days[0], end), each given its day by a CASE of
     * comparisons with the boundaries (newest first), then counted.
     */
    async dailyCounts(tenantId: string, days: readonly number[], end: number): Promise<DailyCountRow[]> {
      if (days.length === 0) return [];
      // Boundaries as parameters: the SQL text depends only on how many days there are (SQLite keeps
      // a prepared statement per text for good). The CASE is grouped by its alias in the outer select,
      // so PostgreSQL does not compare two copies of it with different parameter numbers.
      const whens = days
        .map((start, i) => ({ start, i }))
        .reverse()
        .map(({ start, i }) => sql`when messages.sent_at >= ${start} then ${sql.lit(i)}`);
      const day = sql<number>`case ${sql.join(whens, sql` `)} end`;
      // The period's messages are a range of messages_tenant_time (the chat list's index). Before
      // it, the count went through the project's chats, a range of (chat_id, sent_at) per chat.
      const counted = db
        .selectFrom('messages')
        .select([day.as('day'), 'messages.line_id', 'messages.direction', sql<number>`case when messages.status = 'failed' then 1 else 0 end`.as('failed')])
        .where('messages.tenant_id', '=', tenantId)
        .where('messages.sent_at', '>=', days[0]!)
        .where('messages.sent_at', '<', end)
        .as('m');
      const rows = await db
        .selectFrom(counted)
        .select(['m.day', 'm.line_id', 'm.direction', 'm.failed', sql<number>`count(*)`.as('n')])
        .groupBy(['m.day', 'm.line_id', 'm.direction', 'm.failed'])
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
