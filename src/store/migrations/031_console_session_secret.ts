/**
 * A tenant's console session names the signing secret it was signed in with (`secret_id`), and
 * lives no longer than that secret: a rotation with overlap 0 (a leak response) ends the sessions
 * opened with the secrets it ends, in every process at once. Sessions opened before this
 * migration name none and are ended (signed in again once).
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('console_sessions').addColumn('secret_id', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('console_sessions').dropColumn('secret_id').execute();
}
