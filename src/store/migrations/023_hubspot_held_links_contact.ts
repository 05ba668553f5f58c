/**
 * Whether a held workflow action's phone is its contact's own: replies from a phone are pushed to
 * the contact it is linked to, and a phone the action's input named (a rep told of every enrolled
 * contact) is no contact's, so sending to it links nothing. Rows held before this column were
 * linked as before (1).
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('hubspot_held_actions').addColumn('links_contact', 'integer', (c) => c.notNull().defaultTo(1)).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('hubspot_held_actions').dropColumn('links_contact').execute();
}
