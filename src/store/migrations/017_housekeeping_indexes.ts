/**
 * The housekeeping pass (domain/housekeeping.ts) finds expired rows by `expires_at`: without
 * these indexes each of its batches would scan the whole table.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('idempotency_keys_expires').on('idempotency_keys').column('expires_at').execute();
  await db.schema.createIndex('attachments_pending_expires').on('attachments').columns(['state', 'expires_at']).execute();
  await db.schema.createIndex('hubspot_oauth_states_expires').on('hubspot_oauth_states').column('expires_at').execute();
  await db.schema.createIndex('voice_notes_expires').on('voice_notes').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('voice_notes_expires').execute();
  await db.schema.dropIndex('hubspot_oauth_states_expires').execute();
  await db.schema.dropIndex('attachments_pending_expires').execute();
  await db.schema.dropIndex('idempotency_keys_expires').execute();
}
