/**
 * The housekeeping sweep asks, a page of stored blobs at a time, which of their keys a row still
 * names (domain/blob-sweep.ts): without these indexes each page would scan both tables, and
 * attachment rows are kept for good.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('attachments_blob_key').on('attachments').column('blob_key').execute();
  await db.schema.createIndex('voice_notes_blob_key').on('voice_notes').column('blob_key').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('voice_notes_blob_key').execute();
  await db.schema.dropIndex('attachments_blob_key').execute();
}
