/**
 * Two reads of the event log that walked the project's events to find a few:
 * - Filtered by delivery status (GET /api/v1/events?status=failed, the console's Events screen):
 *   newest first through events_tenant_id, keeping those in that status, so a page of the few
 *   failed events read every event of the project (~68 ms of SQLite's event loop at 200,000
 *   events). events_tenant_status reads only the events in that status, in id order.
 * - The dev inbox (GET /api/v1/dev-inbox, polled every 5 s by the console's Developers screen):
 *   every event recorded since the last one pulled, keeping the dev inbox's, so a project whose
 *   dev inbox went quiet before it went live read all its later events on every poll (~44 ms at
 *   200,000). events_dev_inbox holds only the dev inbox's events, by time.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('events_tenant_status').on('events').columns(['tenant_id', 'status', 'id']).execute();
  await db.schema.createIndex('events_dev_inbox').on('events').columns(['tenant_id', 'created_at', 'id']).where(sql.ref('dev_inbox'), '=', 1).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('events_dev_inbox').execute();
  await db.schema.dropIndex('events_tenant_status').execute();
}
