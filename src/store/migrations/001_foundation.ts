import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('multi_tenant', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('email_verified', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('account_secrets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('lookup_hash', 'text', (c) => c.notNull().unique())
    .addColumn('secret_enc', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint')
    .execute();
  await db.schema.createIndex('account_secrets_account').on('account_secrets').column('account_id').execute();

  await db.schema
    .createTable('tenants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('timezone', 'text', (c) => c.notNull())
    .addColumn('sending_window_start', 'text', (c) => c.notNull())
    .addColumn('sending_window_end', 'text', (c) => c.notNull())
    .addColumn('daily_first_touch_cap', 'integer', (c) => c.notNull())
    .addColumn('rate_per_second', 'double precision', (c) => c.notNull())
    .addColumn('rate_burst', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('tenants_account').on('tenants').column('account_id').execute();

  await db.schema
    .createTable('phone_lines')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('phone_number', 'text', (c) => c.notNull().unique())
    .addColumn('service', 'text', (c) => c.notNull())
    .addColumn('driver', 'text', (c) => c.notNull())
    .addColumn('driver_config_enc', 'text', (c) => c.notNull())
    .addColumn('capabilities', 'text', (c) => c.notNull())
    .addColumn('is_active', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('phone_lines_tenant').on('phone_lines').column('tenant_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['phone_lines', 'tenants', 'account_secrets', 'accounts']) {
    await db.schema.dropTable(t).execute();
  }
}
