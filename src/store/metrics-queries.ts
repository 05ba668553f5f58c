/**
 * The few reads a metrics scrape makes. Each is one cheap statement on an index: first touches
 * of the last 25 hours (at most 30 per line a day, through the partial first-touch index) and
 * the pending webhook deliveries (count and oldest, through delivery_jobs(state, …)).
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.js';

export function metricsQueries(db: Kysely<DB>) {
  return {
    /** Every first touch that counts against a cap (not failed) since `sinceMs`. */
    async firstTouchesSince(sinceMs: number): Promise<{ tenant_id: string; line_id: string | null; sent_at: number }[]> {
      const rows = await db
        .selectFrom('messages')
        .select(['tenant_id', 'line_id', 'sent_at'])
        .where(sql<boolean>`first_touch = 1`)
        .where('status', '!=', 'failed')
        .where('sent_at', '>=', sinceMs)
        .execute();
      return rows.map((r) => ({ ...r, sent_at: Number(r.sent_at) }));
    },

    /** Webhook deliveries still to be made, and when the oldest of them was recorded. */
    async pendingDeliveries(): Promise<{ count: number; oldestAt: number | null }> {
      const r = await db
        .selectFrom('delivery_jobs')
        .select([sql<number>`count(*)`.as('n'), sql<number | null>`min(created_at)`.as('oldest')])
        .where('state', '=', 'pending')
        .executeTakeFirst();
      return { count: Number(r?.n ?? 0), oldestAt: r?.oldest == null ? null : Number(r.oldest) };
    },
  };
}
