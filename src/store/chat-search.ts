/**
 * The chats a search may match, from the trigram indexes of handles and group names (migration
 * 033): every chat the search matches, and on SQLite perhaps a few more (its index folds case
 * beyond ASCII), for the chat list to filter exactly. Undefined when no index can answer well: a
 * search under three characters (no trigram), one with a LIKE wildcard, more than MAX_HITS hits
 * (most searches that broad are found among the recent chats), or a PostgreSQL database whose
 * role could not create pg_trgm.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from './db.js';
import type { DB } from './schema.js';

/**
 * Index hits read at most before the index is given up for the scan (on SQLite over all
 * projects): each costs ~2 µs, so the most a search pays before scanning is ~4 ms (a full scan at
 * 50,000 chats: ~40).
 */
const MAX_HITS = 2_000;

export function chatSearch(db: Kysely<DB>, dialect: Dialect) {
  /** Whether migration 033 could index PostgreSQL (looked up once). */
  let postgresIndexed: Promise<boolean> | undefined;

  async function onSqlite(tenantId: string, pattern: string): Promise<string[] | undefined> {
    const hits = await sql<{ id: number }>`select rowid as id from chat_search where term like ${pattern} limit ${MAX_HITS + 1}`.execute(db);
    if (hits.rows.length > MAX_HITS) return undefined;
    if (hits.rows.length === 0) return [];
    // In this order (CROSS JOIN keeps it): from the hits, never from the project's chats.
    const chats = await sql<{ id: string }>`
      select distinct c.id from json_each(${JSON.stringify(hits.rows.map((h) => h.id))}) h
      cross join chat_search_terms t cross join chats c
      where t.id = h.value and c.id = t.chat_id and c.tenant_id = ${tenantId}`.execute(db);
    return chats.rows.map((c) => c.id);
  }

  function indexed(): Promise<boolean> {
    if (dialect === 'sqlite') return Promise.resolve(true);
    postgresIndexed ??= sql<{ n: number }>`select count(*)::int as n from pg_indexes where indexname = 'chat_search_leads' and schemaname = current_schema()`
      .execute(db)
      .then(
        (r) => r.rows[0]!.n > 0,
        (err: unknown) => {
          // Not kept: the next search asks again (a database that was briefly away).
          postgresIndexed = undefined;
          throw err;
        },
      );
    return postgresIndexed;
  }

  async function onPostgres(tenantId: string, pattern: string): Promise<string[] | undefined> {
    if (!(await indexed())) return undefined;
    // Each branch by its own index (the expressions migration 033 indexed).
    const { rows } = await sql<{ id: string }>`
      select l.id from leads l where l.tenant_id = ${tenantId} and lower(l.handle) like ${pattern}
      union
      select p.chat_id from chat_participants p join chats c on c.id = p.chat_id where c.tenant_id = ${tenantId} and lower(p.handle) like ${pattern}
      union
      select c.id from chats c where c.tenant_id = ${tenantId} and lower(c.display_name) like ${pattern}
      limit ${MAX_HITS + 1}`.execute(db);
    return rows.length > MAX_HITS ? undefined : rows.map((r) => r.id);
  }

  return {
    /** Whether this database has the indexes (PostgreSQL: looked up once, so a restart sees ones added later). */
    indexed,
    /** `search` as the chat list has it (lower case). */
    candidates(tenantId: string, search: string): Promise<string[] | undefined> {
      if ([...search].length < 3 || /[%_\\]/.test(search)) return Promise.resolve(undefined);
      const pattern = `%${search}%`;
      return dialect === 'sqlite' ? onSqlite(tenantId, pattern) : onPostgres(tenantId, pattern);
    },
  };
}
