/**
 * The housekeeping pass deletes an attachment's file once past its retention (plus a grace), and
 * keeps the row so every answer about it stays the same; `file_deleted_at` says the file is gone,
 * so the pass never tries it again. The index finds the next files due: rows still holding a
 * file, by expiry (marked rows drop out of its range, so batches never walk over them).
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('attachments').addColumn('file_deleted_at', 'bigint').execute();
  await db.schema.createIndex('attachments_file_expires').on('attachments').columns(['file_deleted_at', 'expires_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('attachments_file_expires').execute();
  await db.schema.alterTable('attachments').dropColumn('file_deleted_at').execute();
}
