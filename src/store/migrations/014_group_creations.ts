/**
 * A group creation is recorded before its line is called (its intent) and removed in the same
 * transaction that records the group; one a crash or a lost answer left behind is settled by the
 * reconciliation sweep, which asks the line whether the group exists (domain/messaging/group-creations.ts).
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('group_creations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('line_id', 'text', (c) => c.notNull())
    .addColumn('handles', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('display_name', 'text')
    .addColumn('idempotency_key', 'text')
    .addColumn('chat_id', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('reserved_at', 'bigint', (c) => c.notNull())
    .addColumn('previous_first_touch_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('group_creations_created').on('group_creations').columns(['created_at']).execute();
  await db.schema.createIndex('group_creations_key').on('group_creations').columns(['tenant_id', 'idempotency_key']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('group_creations').execute();
}
