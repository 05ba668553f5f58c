/**
 * Receipts update a message in place on PostgreSQL (HOT updates: no new index entries).
 *
 * Every sent message is updated twice more (delivered, read). PostgreSQL can do that without
 * touching the indexes only when no indexed column changes, counting the columns of partial
 * index predicates, and when the row's page has room. `messages_sending` named `status` in its
 * predicate; it now names what a message still `sending` has: no provider guid and no error
 * (a send that failed always records its error code). And messages' pages keep 15% free.
 */
import { PostgresAdapter, sql, type Kysely } from 'kysely';

const onPostgres = (db: Kysely<unknown>) => db.getExecutor().adapter instanceof PostgresAdapter;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('messages_sending').execute();
  await sql`create index messages_sending on messages (sent_at) where direction = 'outbound' and provider_guid is null and error_code is null`.execute(db);
  if (onPostgres(db)) await sql`alter table messages set (fillfactor = 85)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('messages_sending').execute();
  await db.schema.createIndex('messages_sending').on('messages').columns(['sent_at']).where(sql.ref('status'), '=', 'sending').execute();
  if (onPostgres(db)) await sql`alter table messages reset (fillfactor)`.execute(db);
}
