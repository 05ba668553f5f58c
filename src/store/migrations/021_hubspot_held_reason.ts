/**
 * Why a workflow action is held (docs/decisions.md, HubSpot): the time limit that refused it last,
 * in the synchronous answer's words ('outside sending window': it waits for the window to open;
 * 'lines saturated': for a free line). Null once the action is no longer held, and on rows held
 * before this column.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('hubspot_held_actions').addColumn('reason', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('hubspot_held_actions').dropColumn('reason').execute();
}
