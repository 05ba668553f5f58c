import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('leads')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('handle', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('leads_tenant_handle', ['tenant_id', 'handle'])
    .execute();

  await db.schema
    .createTable('chats')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('is_group', 'integer', (c) => c.notNull())
    .addColumn('lead_id', 'text')
    .addColumn('line_id', 'text', (c) => c.references('phone_lines.id'))
    .addColumn('convo_id', 'text', (c) => c.notNull())
    .addColumn('chat_key', 'text')
    .addColumn('display_name', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('chats_tenant').on('chats').column('tenant_id').execute();

  await db.schema
    .createTable('chat_participants')
    .addColumn('chat_id', 'text', (c) => c.notNull().references('chats.id'))
    .addColumn('handle', 'text', (c) => c.notNull())
    .addColumn('added_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('chat_participants_pk', ['chat_id', 'handle'])
    .execute();

  await db.schema
    .createTable('messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('chat_id', 'text', (c) => c.notNull().references('chats.id'))
    .addColumn('line_id', 'text')
    .addColumn('direction', 'text', (c) => c.notNull())
    .addColumn('sender_handle', 'text')
    .addColumn('parts', 'text', (c) => c.notNull())
    .addColumn('effect', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('provider_guid', 'text')
    .addColumn('first_touch', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error_code', 'integer')
    .addColumn('sent_at', 'bigint', (c) => c.notNull())
    .addColumn('delivered_at', 'bigint')
    .addColumn('read_at', 'bigint')
    .addColumn('edited_at', 'bigint')
    .execute();
  await db.schema.createIndex('messages_chat_time').on('messages').columns(['chat_id', 'sent_at', 'id']).execute();
  await db.schema.createIndex('messages_guid').on('messages').columns(['line_id', 'provider_guid']).execute();
  await db.schema.createIndex('messages_first_touch').on('messages').columns(['line_id', 'first_touch', 'sent_at']).execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('route', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('identity', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('http_status', 'integer')
    .addColumn('response', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_pk', ['tenant_id', 'route', 'key'])
    .execute();

  await db.schema
    .createTable('rate_buckets')
    .addColumn('tenant_id', 'text', (c) => c.primaryKey())
    .addColumn('tokens', 'double precision', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('line_state')
    .addColumn('line_id', 'text', (c) => c.primaryKey())
    .addColumn('service_epoch', 'text', (c) => c.notNull())
    .addColumn('last_first_touch_at', 'bigint')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('simulator_sent')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('line_id', 'text', (c) => c.notNull())
    .addColumn('entry', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('simulator_sent_line').on('simulator_sent').columns(['line_id', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['simulator_sent', 'line_state', 'rate_buckets', 'idempotency_keys', 'messages', 'chat_participants', 'chats', 'leads']) {
    await db.schema.dropTable(t).execute();
  }
}
