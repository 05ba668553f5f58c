/**
 * An upload slot carries its own credential: the sha256 of a random token
 * handed out with the slot, so the PUT can be authorised without the
 * caller's signing secret. Only the hash is kept; inbound media have none.
 * A staged voice note is used up by the send that takes it (the spec's
 * staged → "used for a send"): `used_at` marks that.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('attachments').addColumn('upload_token_hash', 'text').execute();
  await db.schema.alterTable('voice_notes').addColumn('used_at', 'bigint').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('voice_notes').dropColumn('used_at').execute();
  await db.schema.alterTable('attachments').dropColumn('upload_token_hash').execute();
}
