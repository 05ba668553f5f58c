/**
 * A contact-creation auto-send refused only for time (outside the sending window, every line at
 * its first-touch limit) waits instead of failing (docs/decisions.md, HubSpot): the phone and the
 * rendered text are kept on the row, so a later attempt sends them without reading the contact
 * again (the spec's budget is one HubSpot call per contact-creation auto-send).
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('hubspot_auto_sends').addColumn('phone', 'text').execute();
  await db.schema.alterTable('hubspot_auto_sends').addColumn('text', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('hubspot_auto_sends').dropColumn('text').execute();
  await db.schema.alterTable('hubspot_auto_sends').dropColumn('phone').execute();
}
