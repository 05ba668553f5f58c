/**
 * The domain of a portal's HubSpot UI (account details' `uiDomain`: app.hubspot.com,
 * app-eu1.hubspot.com for a portal hosted in the EU, …), learned at install from the account
 * details call the install already makes, so the console links a contact id to its record there.
 * Null on installs made before this column until it is learned once (crm/hubspot/ui-domain.ts).
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('hubspot_installs').addColumn('ui_domain', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('hubspot_installs').dropColumn('ui_domain').execute();
}
