/**
 * Workflow actions held for time (docs/decisions.md, HubSpot): an action refused only by the
 * sending window or the lines' first-touch limits is answered BLOCK and kept here, one row per
 * portal and callbackId; a job sends it when it can and completes the action at HubSpot. A row
 * is claimed with an owner and a lease, so two processes never work it at once.
 *
 * And a workflow action's callbackId record is kept for good (it lived 7 days): a v1/v2 signature
 * carries no timestamp, so a captured request replayed later must still be a duplicate.
 */
import { sql, type Kysely } from 'kysely';

/** The expiry of a record kept for good (as crm/hubspot/once.ts writes it). */
const NEVER_MS = Number.MAX_SAFE_INTEGER;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('hubspot_held_actions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('portal_id', 'text', (c) => c.notNull())
    .addColumn('callback_id', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text')
    .addColumn('message_id', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('send_by', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('owner', 'text')
    .addColumn('lease_until', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('completed_at', 'bigint')
    .execute();
  await db.schema.createIndex('hubspot_held_actions_callback').unique().on('hubspot_held_actions').columns(['portal_id', 'callback_id']).execute();
  await db.schema.createIndex('hubspot_held_actions_due').on('hubspot_held_actions').columns(['state', 'next_attempt_at']).execute();
  await sql`update idempotency_keys set expires_at = ${NEVER_MS} where route = 'crm:hubspot:workflow'`.execute(db);
}

/** The records kept for good stay so: which of them were 7-day ones is not known any more. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('hubspot_held_actions').execute();
}
