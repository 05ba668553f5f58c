/**
 * First-touch counts read only first-touch messages: partial indexes hold just those, so
 * inbound messages and follow-ups no longer pay for an index they never use, and the
 * tenant's daily count no longer scans every message the tenant has.
 * The queries say `first_touch = 1` literally, as a partial index requires.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('messages_first_touch').execute();
  await db.schema.createIndex('messages_first_touch_line').on('messages').columns(['line_id', 'sent_at']).where(sql.ref('first_touch'), '=', 1).execute();
  await db.schema.createIndex('messages_first_touch_tenant').on('messages').columns(['tenant_id', 'sent_at']).where(sql.ref('first_touch'), '=', 1).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('messages_first_touch_line').execute();
  await db.schema.dropIndex('messages_first_touch_tenant').execute();
  await db.schema.createIndex('messages_first_touch').on('messages').columns(['line_id', 'first_touch', 'sent_at']).execute();
}
