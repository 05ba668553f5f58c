/**
 * HubSpot reply push from a queue. The job found due replies by joining every inbound message
 * from a linked handle since its link with the push records, so each run read a linked
 * contact's whole reply history, pushed or not (~70 ms of SQLite's event loop at 44,000 pushed
 * replies, every run and every status read, growing with them). Now a reply gets its push rows
 * (`pending`, no attempt yet) when it is recorded, in the same transaction, and the job reads
 * only rows not finished.
 *
 * A link is `settled` once the job has queued the replies recorded before the link was visible
 * to their transactions (a reply written at the moment of the link, or with a phone's clock
 * ahead of ours). Until then each run sweeps it; links that exist before this migration start
 * unsettled, so their first sweep queues every reply they never pushed, as the old query found.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('hubspot_contact_links').addColumn('settled', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.createIndex('hubspot_contact_links_unsettled').on('hubspot_contact_links').columns(['tenant_id']).where(sql.ref('settled'), '=', 0).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('hubspot_contact_links_unsettled').execute();
  await db.schema.alterTable('hubspot_contact_links').dropColumn('settled').execute();
}
