/**
 * The project's daily first-touch cap, taken atomically: one row per project and local day counts
 * the first touches reserved that day (`n`), and a reservation is one compare-and-set increment,
 * so of requests racing for the last slot (in one process or several) exactly one gets it.
 *
 * `n` counts failed first touches too, and the increment's condition subtracts today's failed
 * first-touch messages: a failed first touch does not use the cap, whichever path marked it
 * failed (the send's own answer, or reconciliation of an ambiguous one). A reservation that sent
 * nothing (another process pinned the chat first, no line free, a group the line never created)
 * is given back (`giveBack`).
 *
 * A day's row is seeded on its first reservation from what that day already holds: its
 * first-touch messages (every status) and group creations still pending, so the day the counter
 * ships counts the first touches made before it.
 *
 * Rows of days long over are deleted by the reconciliation sweep (`deleteBefore`,
 * FIRST_TOUCH_DAYS_KEPT_MS in domain/messaging/limits.ts).
 */
import { sql, type Kysely, type SqlBool } from 'kysely';
import type { DB } from './schema.js';
import { FIRST_TOUCH } from './messages.js';

export function firstTouchDaysRepo(db: Kysely<DB>) {
  const failedSince = (tenantId: string, dayStart: number) =>
    db
      .selectFrom('messages')
      .select(sql<number>`count(*)`.as('n'))
      .where('tenant_id', '=', tenantId)
      .where(FIRST_TOUCH)
      .where('status', '=', 'failed')
      .where('sent_at', '>=', dayStart);

  async function increment(tenantId: string, dayStart: number, cap: number): Promise<boolean> {
    const r = await db
      .updateTable('first_touch_days')
      .set((eb) => ({ n: eb('n', '+', 1) }))
      .where('tenant_id', '=', tenantId)
      .where('day_start', '=', dayStart)
      .where(sql<SqlBool>`n < ${cap} + (${failedSince(tenantId, dayStart)})`)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async function seed(tenantId: string, dayStart: number): Promise<number> {
    const [messages, pending] = await Promise.all([
      db
        .selectFrom('messages')
        .select(sql<number>`count(*)`.as('n'))
        .where('tenant_id', '=', tenantId)
        .where(FIRST_TOUCH)
        .where('sent_at', '>=', dayStart)
        .executeTakeFirst(),
      db
        .selectFrom('group_creations')
        .select(sql<number>`count(*)`.as('n'))
        .where('tenant_id', '=', tenantId)
        .where('reserved_at', '>=', dayStart)
        .executeTakeFirst(),
    ]);
    return Number(messages?.n ?? 0) + Number(pending?.n ?? 0);
  }

  return {
    /**
     * Takes one of the project's first touches for the local day starting at `dayStart`, if
     * fewer than `cap` (beside the day's failed ones) are taken; false when the cap is used up.
     */
    async take(tenantId: string, dayStart: number, cap: number): Promise<boolean> {
      if (await increment(tenantId, dayStart, cap)) return true;
      const row = await db
        .selectFrom('first_touch_days')
        .select('n')
        .where('tenant_id', '=', tenantId)
        .where('day_start', '=', dayStart)
        .executeTakeFirst();
      if (!row) {
        // The day's first: its row starts from what the day holds already (of two processes seeding at once, one row wins).
        await db
          .insertInto('first_touch_days')
          .values({ tenant_id: tenantId, day_start: dayStart, n: await seed(tenantId, dayStart) })
          .onConflict((oc) => oc.columns(['tenant_id', 'day_start']).doNothing())
          .execute();
      }
      // Once more either way: a row found now may be one another request created after our first
      // try found none (two first touches at the start of a day), not a row at its cap.
      return increment(tenantId, dayStart, cap);
    },

    /**
     * Gives back a first touch taken at `reservedAtMs` that sent nothing. Its day is the latest
     * row begun by then, so the caller need not know the project's timezone (nor whether it
     * changed since).
     */
    async giveBack(tenantId: string, reservedAtMs: number): Promise<void> {
      const day = db
        .selectFrom('first_touch_days')
        .select(sql<number>`max(day_start)`.as('d'))
        .where('tenant_id', '=', tenantId)
        .where('day_start', '<=', reservedAtMs);
      await db
        .updateTable('first_touch_days')
        .set((eb) => ({ n: eb('n', '-', 1) }))
        .where('tenant_id', '=', tenantId)
        .where('day_start', '=', day)
        .where('n', '>', 0)
        .execute();
    },

    /**
     * Deletes the rows of every project's days that began before `beforeMs`; the number deleted.
     * A slot given back later for one of those days finds no row begun by then (every older one
     * is gone too) and changes nothing.
     */
    async deleteBefore(beforeMs: number): Promise<number> {
      const r = await db.deleteFrom('first_touch_days').where('day_start', '<', beforeMs).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}

export type FirstTouchDaysRepo = ReturnType<typeof firstTouchDaysRepo>;
