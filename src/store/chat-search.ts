/**
 * The chats a search may match, from SQLite's trigram index of handles and group names
 * (migration 033): a superset, every chat the search matches and perhaps a few more (the index
 * folds case beyond ASCII), for the chat list to filter exactly. Undefined when the index cannot
 * answer well: PostgreSQL, a search under three characters (no trigram), one with a LIKE
 * wildcard, or more than MAX_HITS hits (most searches that broad are found among the recent chats).
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from './db.js';
import type { DB } from './schema.js';

/**
 * Index hits read at most, over all projects, before the index is given up for the scan: each
 * costs ~2 µs, so the most a search pays before scanning is ~4 ms (a full scan at 50,000 chats: ~40).
 */
const MAX_HITS = 2_000;

export async function searchCandidates(db: Kysely<DB>, dialect: Dialect, tenantId: string, search: string): Promise<string[] | undefined> {
  if (dialect !== 'sqlite' || [...search].length < 3 || /[%_\\]/.test(search)) return undefined;
  const pattern = `%${search}%`;
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
