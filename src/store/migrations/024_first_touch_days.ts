/**
 * The project's daily first-touch cap is taken with a compare-and-set on one row per project and
 * local day (store/first-touch-days.ts): a count of today's messages, read before any of the
 * requests racing for the last slot had inserted its message, let all of them through.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('first_touch_days')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('day_start', 'bigint', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('first_touch_days_pk', ['tenant_id', 'day_start'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('first_touch_days').execute();
}
