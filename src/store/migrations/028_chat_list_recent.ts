/**
 * The chat list (GET /api/v1/chats, polled by the console every 10 s) ordered every chat of the
 * project by its last message, looked up chat by chat, and kept a page: ~110 ms of SQLite's
 * event loop per page at 50,000 chats (bench/console-reads.ts), growing with the chats. It now
 * reads the project's latest messages first (messages_tenant_time, which holds their chat so
 * that a busy chat's messages are skipped in the index) and looks up only their chats, and the
 * chats created since the oldest of them (chats_tenant_created, which also serves every read
 * chats_tenant served: it is dropped). The overview's 30 days of messages are read through
 * messages_tenant_time too, where they were read through every chat of the project.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('messages_tenant_time').on('messages').columns(['tenant_id', 'sent_at', 'chat_id']).execute();
  await db.schema.createIndex('chats_tenant_created').on('chats').columns(['tenant_id', 'created_at']).execute();
  await db.schema.dropIndex('chats_tenant').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('chats_tenant').on('chats').column('tenant_id').execute();
  await db.schema.dropIndex('chats_tenant_created').execute();
  await db.schema.dropIndex('messages_tenant_time').execute();
}
