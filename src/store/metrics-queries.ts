/**
 * The few reads a metrics scrape makes. Each is one cheap statement on an index: first touches
 * of the last 25 hours (at most 30 per line a day, through the partial first-touch index), the
 * pending webhook deliveries (count and oldest, through delivery_jobs(state, …)), the open
 * HubSpot reply-push breakers (a row per project with HubSpot) and the replies waiting for
 * HubSpot (each active install's, through hubspot_reply_pushes(portal_id, state, …)).
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.js';
import { waitingPushes } from './hubspot-push.js';

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

    /** Projects with HubSpot installed whose reply push breaker is open (pushes stopped but for one probe a run). */
    async openPushBreakers(): Promise<number> {
      const r = await db
        .selectFrom('hubspot_push_state as s')
        .select(sql<number>`count(*)`.as('n'))
        .where('s.breaker_state', '=', 'open')
        .where(({ exists, selectFrom }) =>
          exists(selectFrom('hubspot_installs as i').select(sql`1`.as('one')).whereRef('i.tenant_id', '=', 's.tenant_id').where('i.status', '=', 'active')),
        )
        .executeTakeFirst();
      return Number(r?.n ?? 0);
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

    /**
     * Replies queued for HubSpot and not pushed yet, over active installs, and when the oldest was
     * queued (an uninstalled portal's contacts may go on replying: their rows are not read).
     */
    async waitingReplies(): Promise<{ count: number; oldestAt: number | null }> {
      const r = await sql<{ n: number; oldest: number | null }>`select count(*) as n, min(p.created_at) as oldest ${waitingPushes()}`.execute(db);
      const row = r.rows[0];
      return { count: Number(row?.n ?? 0), oldestAt: row?.oldest == null ? null : Number(row.oldest) };
    },
  };
}
