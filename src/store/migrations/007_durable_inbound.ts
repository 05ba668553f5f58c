/**
 * Nothing inbound is lost, nothing is held by a worker that lost its lease (issue 16):
 * - `inbound_intake`: a provider's webhook body, stored before the webhook is answered and
 *   processed by the intake worker (claimed like delivery jobs: owner and lease).
 * - `inbound_cursors`: per line, the high-water mark of the provider's messages walked by
 *   catch-up (BlueBubbles' dateCreated), with the process holding the line's catch-up.
 * - `delivery_jobs.locked_by`: the worker holding a claimed job; only it may end the claim.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('inbound_intake')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('line_id', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('lease_until', 'bigint')
    .addColumn('locked_by', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('inbound_intake_due').on('inbound_intake').columns(['state', 'next_attempt_at']).execute();

  await db.schema
    .createTable('inbound_cursors')
    .addColumn('line_id', 'text', (c) => c.primaryKey())
    .addColumn('high_water_ms', 'bigint')
    .addColumn('floor_ms', 'bigint')
    .addColumn('lease_until', 'bigint')
    .addColumn('locked_by', 'text')
    .addColumn('checked_at', 'bigint')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema.alterTable('delivery_jobs').addColumn('locked_by', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('delivery_jobs').dropColumn('locked_by').execute();
  await db.schema.dropTable('inbound_cursors').execute();
  await db.schema.dropTable('inbound_intake').execute();
}
