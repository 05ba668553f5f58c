/**
 * Tapbacks on messages (issue 20: reactions in the thread view): one row per message and
 * sender, since a person has at most one tapback on a message (a new one replaces it). The
 * sender is the contact's handle, or `me` for the tenant's own (sent through the API or from
 * the line's Mac). A removal deletes the row.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('message_reactions')
    .addColumn('message_id', 'text', (c) => c.notNull().references('messages.id'))
    .addColumn('sender', 'text', (c) => c.notNull())
    .addColumn('reaction', 'text', (c) => c.notNull())
    .addColumn('reacted_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('message_reactions_pk', ['message_id', 'sender'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('message_reactions').execute();
}
