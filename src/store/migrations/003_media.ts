import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('attachments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('filename', 'text')
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('declared_size', 'bigint')
    .addColumn('size_bytes', 'bigint')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('blob_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('uploaded_at', 'bigint')
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('attachments_tenant').on('attachments').columns(['tenant_id', 'id']).execute();

  await db.schema
    .createTable('voice_notes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('line_id', 'text', (c) => c.notNull())
    .addColumn('service_epoch', 'text', (c) => c.notNull())
    .addColumn('blob_key', 'text', (c) => c.notNull())
    .addColumn('size_bytes', 'bigint', (c) => c.notNull())
    .addColumn('duration_seconds', 'double precision', (c) => c.notNull())
    .addColumn('transcoded', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('voice_notes').execute();
  await db.schema.dropTable('attachments').execute();
}
