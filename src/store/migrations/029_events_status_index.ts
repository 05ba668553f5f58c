/**
 * The event log filtered by delivery status (GET /api/v1/events?status=failed, the console's
 * Events screen) walked the project's events newest first through events_tenant_id and kept
 * those in that status: a page of the few failed events read every event of the project
 * (~68 ms of SQLite's event loop at 200,000 events, growing with the log). This index reads only
 * the events in the status asked for, already in id order.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('events_tenant_status').on('events').columns(['tenant_id', 'status', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('events_tenant_status').execute();
}
