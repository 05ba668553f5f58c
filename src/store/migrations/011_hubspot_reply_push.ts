/**
 * HubSpot reply push (issue 18): one row per reply and portal, reserved before
 * HubSpot is called (so a crash leaves a trace to recover from, never a second
 * create); a per-tenant row for the reply-notify job's lease, schedule and
 * breaker; a per-portal pause for HubSpot's 429 windows; and an index that finds
 * a linked handle's inbound messages without scanning the tenant's messages.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('hubspot_reply_pushes')
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('portal_id', 'text', (c) => c.notNull())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('contact_id', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('create_unknown', 'integer', (c) => c.notNull())
    .addColumn('communication_id', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('lease_until', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('sent_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('pushed_at', 'bigint')
    .addPrimaryKeyConstraint('hubspot_reply_pushes_pk', ['message_id', 'portal_id'])
    .execute();
  await db.schema.createIndex('hubspot_reply_pushes_portal').on('hubspot_reply_pushes').columns(['portal_id', 'state', 'sent_at']).execute();

  await db.schema
    .createTable('hubspot_push_state')
    .addColumn('tenant_id', 'text', (c) => c.primaryKey())
    .addColumn('lease_until', 'bigint')
    .addColumn('next_run_at', 'bigint', (c) => c.notNull())
    .addColumn('breaker_state', 'text', (c) => c.notNull())
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull())
    .addColumn('opened_at', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('last_push_at', 'bigint')
    .execute();

  await db.schema.alterTable('hubspot_installs').addColumn('push_paused_until', 'bigint').execute();

  await db.schema
    .createIndex('messages_inbound_sender')
    .on('messages')
    .columns(['tenant_id', 'sender_handle', 'sent_at'])
    .where(sql.ref('direction'), '=', 'inbound')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('messages_inbound_sender').execute();
  await db.schema.alterTable('hubspot_installs').dropColumn('push_paused_until').execute();
  await db.schema.dropTable('hubspot_push_state').execute();
  await db.schema.dropTable('hubspot_reply_pushes').execute();
}
