/**
 * HubSpot: installs (one per portal; tokens sealed under the master key), single-use
 * OAuth states (only their hash), HubSpot calls counted per portal, day and kind,
 * contact-creation auto-sends (recorded before they are worked on; one per portal
 * and contact), the contacts a send linked to a handle (where reply push looks), and
 * the tenant's install slots.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tenants').addColumn('crm_install_slots', 'integer', (c) => c.notNull().defaultTo(1)).execute();

  await db.schema
    .createTable('hubspot_installs')
    .addColumn('portal_id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('account_type', 'text', (c) => c.notNull())
    .addColumn('sandbox', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('access_token_enc', 'text')
    .addColumn('refresh_token_enc', 'text')
    .addColumn('expires_at', 'bigint')
    .addColumn('token_version', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('refresh_lease_until', 'bigint')
    .addColumn('auto_send_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('auto_send_template', 'text')
    .addColumn('auto_send_line_id', 'text')
    .addColumn('installed_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('hubspot_installs_tenant').on('hubspot_installs').column('tenant_id').execute();

  await db.schema
    .createTable('hubspot_oauth_states')
    .addColumn('state_hash', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();

  await db.schema
    .createTable('hubspot_call_counts')
    .addColumn('portal_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('hubspot_call_counts_pk', ['portal_id', 'day', 'kind'])
    .execute();

  await db.schema
    .createTable('hubspot_auto_sends')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('portal_id', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('code', 'integer')
    .addColumn('message_id', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('lease_until', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('hubspot_auto_sends_object', ['portal_id', 'object_id'])
    .execute();
  await db.schema.createIndex('hubspot_auto_sends_list').on('hubspot_auto_sends').columns(['portal_id', 'id']).execute();
  await db.schema.createIndex('hubspot_auto_sends_due').on('hubspot_auto_sends').columns(['status', 'next_attempt_at']).execute();

  await db.schema
    .createTable('hubspot_contact_links')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('handle', 'text', (c) => c.notNull())
    .addColumn('portal_id', 'text', (c) => c.notNull())
    .addColumn('contact_id', 'text', (c) => c.notNull())
    .addColumn('linked_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('hubspot_contact_links_pk', ['tenant_id', 'handle', 'portal_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['hubspot_contact_links', 'hubspot_auto_sends', 'hubspot_call_counts', 'hubspot_oauth_states', 'hubspot_installs']) await db.schema.dropTable(t).execute();
  await db.schema.alterTable('tenants').dropColumn('crm_install_slots').execute();
}
