/**
 * Fewer index writes per send (bench/README, thirtieth session).
 *
 * - `messages_guid` (line, provider guid) held every outbound message from its insert, under a
 *   null guid, and moved it when the send's answer set the guid: two index writes per send for
 *   an entry no query reads (every lookup names a guid, and `provider_guid = ?` implies it is not
 *   null, so both databases still use the partial index). `messages_line_guid` holds a message
 *   once, with its guid. It is built before the old one goes, so other processes' lookups keep
 *   an index while it is built.
 * - The simulator's device log (`simulator_sent`) was a table and two indexes (its id, and line
 *   and id, the only order it is read in): three B-trees per entry, one an entry a simulated send.
 *   Now it is keyed by line and id: one B-tree on SQLite (WITHOUT ROWID), a heap and one index on
 *   PostgreSQL.
 */
import { PostgresAdapter, sql, type Kysely } from 'kysely';

const onPostgres = (db: Kysely<unknown>) => db.getExecutor().adapter instanceof PostgresAdapter;

/** The device log copied into a table keyed by line and id (032), or by id with an index on line and id (before). */
async function rebuildDeviceLog(db: Kysely<unknown>, keyedByLine: boolean): Promise<void> {
  const key = keyedByLine ? sql.raw('constraint simulator_sent_line_key primary key (line_id, id)') : sql.raw('constraint simulator_sent_id_key primary key (id)');
  await sql`create table simulator_sent_rebuilt (
      id text not null, line_id text not null, entry text not null, created_at bigint not null,
      ${key})${sql.raw(keyedByLine && !onPostgres(db) ? ' without rowid' : '')}`.execute(db);
  await sql`insert into simulator_sent_rebuilt (id, line_id, entry, created_at) select id, line_id, entry, created_at from simulator_sent`.execute(db);
  await db.schema.dropTable('simulator_sent').execute();
  await sql`alter table simulator_sent_rebuilt rename to simulator_sent`.execute(db);
  if (!keyedByLine) await db.schema.createIndex('simulator_sent_line').on('simulator_sent').columns(['line_id', 'id']).execute();
}

// The device log first: on PostgreSQL the index build holds writes to messages until the
// migrations' transaction ends, so nothing slow comes after it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await rebuildDeviceLog(db, true);
  await db.schema.createIndex('messages_line_guid').on('messages').columns(['line_id', 'provider_guid']).where(sql.ref('provider_guid'), 'is not', null).execute();
  await db.schema.dropIndex('messages_guid').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await rebuildDeviceLog(db, false);
  await db.schema.createIndex('messages_guid').on('messages').columns(['line_id', 'provider_guid']).execute();
  await db.schema.dropIndex('messages_line_guid').execute();
}
