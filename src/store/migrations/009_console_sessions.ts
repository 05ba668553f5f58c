/**
 * Console sessions: a signed-in browser holds only a random token in an HttpOnly cookie; the
 * database keeps its sha256 (so a leaked table opens no session), who it is (a tenant or the
 * operator), its CSRF token and its expiry. In the database so every process shares them.
 * Webhook subscriptions gain `disabled_at`: a disabled endpoint keeps its secret and settings
 * but receives nothing until it is enabled again (PATCH /webhook-subscriptions/{id}).
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('console_sessions')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('tenant_id', 'text')
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('console_sessions_expires').on('console_sessions').column('expires_at').execute();
  await db.schema.alterTable('webhook_subscriptions').addColumn('disabled_at', 'bigint').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_subscriptions').dropColumn('disabled_at').execute();
  await db.schema.dropTable('console_sessions').execute();
}
