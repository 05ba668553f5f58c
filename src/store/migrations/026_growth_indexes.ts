/**
 * The events list filtered by lead (GET /api/v1/events?lead_id=…, newest first) walked the project's
 * events through events_tenant_id and kept the lead's: for a lead with fewer events than a page it
 * read every event of the project. This index reads only the lead's events, already in id order.
 *
 * (Not here: an index on messages (line_id, sent_at) for housekeeping's voice-note check. With it,
 * PostgreSQL's /send fell from ~4,500 to ~1,800 req/s in bench/send.ts: a plan on the send's path
 * took it. The check stays one pass over messages every ten minutes.)
 *
 * A group's chat by the provider's chat key (store/chats.ts chatByKey: every inbound group message
 * and group creation) read all of the project's chats through chats_tenant. Only groups have a key.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('events_tenant_lead').on('events').columns(['tenant_id', 'lead_id', 'id']).execute();
  await db.schema.createIndex('chats_tenant_key').on('chats').columns(['tenant_id', 'chat_key']).where(sql.ref('chat_key'), 'is not', null).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('chats_tenant_key').execute();
  await db.schema.dropIndex('events_tenant_lead').execute();
}
