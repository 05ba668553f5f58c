/**
 * The chats a search may match, from the trigram indexes of handles and group names (migration
 * 033): every chat the search matches, and perhaps a few more, for the chat list to filter
 * exactly. Undefined when no index can answer well: a search under three characters (no
 * trigram), more than MAX_HITS hits (most searches that broad are found among the recent chats),
 * or a PostgreSQL database whose role could not create pg_trgm.
 *
 * Case is folded as the store folds it (foldedLike): on SQLite every letter (JavaScript's
 * toLowerCase: unicode-lower.ts), on PostgreSQL as the database's locale does with lower() (a
 * UTF-8 locale every letter, the C locale ASCII only: README, "Running on PostgreSQL").
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Dialect } from './db.js';
import type { DB } from './schema.js';
import { UNICODE_LOWER } from './unicode-lower.js';

/**
 * Index hits read at most before the index is given up for the scan (on SQLite over all
 * projects): each costs ~2 µs, so the most a search pays before scanning is ~4 ms (a full scan at
 * 50,000 chats: ~40).
 */
const MAX_HITS = 2_000;

/** Trigrams of a search asked of the SQLite index at most: a long search's first ones narrow enough. */
const MAX_TRIGRAMS = 16;

/** A LIKE pattern of the texts containing `search`, its wildcards and backslash taken literally (escaped by a backslash). */
const containing = (search: string) => `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * `text` contains `search`, case folded as the store folds it (see above). `text` is the
 * expression to fold; `search` is taken literally (LIKE's wildcards escaped).
 */
export function foldedLike(dialect: Dialect, text: RawBuilder<unknown>, search: string): RawBuilder<unknown> {
  const pattern = containing(search);
  if (dialect === 'postgres') return sql`lower(${text}) like lower(${pattern}) escape '\\'`;
  const folded = sql`${sql.raw(UNICODE_LOWER)}(${text}) like ${pattern.toLowerCase()} escape '\\'`;
  if (!/^[\x00-\x7f]*$/.test(search)) return folded;
  // An ASCII search: SQLite's own LIKE (ASCII letters in any case) answers the same, ~0.3 µs a
  // text sooner (a scan of 50,000 chats: 24 ms, not 41), for any text without the two letters
  // whose lower case is ASCII (U+0130 İ → "i̇", U+212A Kelvin sign → "k"), which get the fold.
  return sql`(${text} like ${pattern} escape '\\' or ((instr(${text}, char(304)) or instr(${text}, char(8490))) and ${folded}))`;
}

/**
 * An FTS5 query every text containing `search` matches: its trigrams, each quoted (the index
 * keeps no positions, so no phrase), or undefined when it has none. The trigram tokenizer folds
 * case beyond ASCII for the query as for the index; a LIKE on it would not (SQLite's LIKE
 * re-checks each hit, ASCII only). Trigrams with a combining mark are left out: the tokenizer
 * folds "İ" to "i" where JavaScript gives "i" and a combining dot, which the index never holds.
 */
function trigramsOf(search: string): string | undefined {
  const chars = [...search];
  const trigrams = new Set<string>();
  for (let i = 0; i + 3 <= chars.length && trigrams.size < MAX_TRIGRAMS; i++) {
    const trigram = chars.slice(i, i + 3).join('');
    if (!/\p{M}/u.test(trigram)) trigrams.add(trigram);
  }
  return trigrams.size ? [...trigrams].map((t) => `"${t.replaceAll('"', '""')}"`).join(' AND ') : undefined;
}

export function chatSearch(db: Kysely<DB>, dialect: Dialect) {
  /** Whether migration 033 could index PostgreSQL (looked up once). */
  let postgresIndexed: Promise<boolean> | undefined;

  async function onSqlite(tenantId: string, search: string): Promise<string[] | undefined> {
    const query = trigramsOf(search);
    if (query === undefined) return undefined;
    const hits = await sql<{ id: number }>`select rowid as id from chat_search where chat_search match ${query} limit ${MAX_HITS + 1}`.execute(db);
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

  async function onPostgres(tenantId: string, search: string): Promise<string[] | undefined> {
    if (!(await indexed())) return undefined;
    // Each branch by its own index (the expressions migration 033 indexed); the pattern's lower()
    // is worked out once, when the statement is planned. A backslash is already the escape of its LIKE.
    const pattern = containing(search);
    const { rows } = await sql<{ id: string }>`
      select l.id from leads l where l.tenant_id = ${tenantId} and lower(l.handle) like lower(${pattern})
      union
      select p.chat_id from chat_participants p join chats c on c.id = p.chat_id where c.tenant_id = ${tenantId} and lower(p.handle) like lower(${pattern})
      union
      select c.id from chats c where c.tenant_id = ${tenantId} and lower(c.display_name) like lower(${pattern})
      limit ${MAX_HITS + 1}`.execute(db);
    return rows.length > MAX_HITS ? undefined : rows.map((r) => r.id);
  }

  return {
    /** Whether this database has the indexes (PostgreSQL: looked up once, so a restart sees ones added later). */
    indexed,
    /** `search` as it was asked. */
    candidates(tenantId: string, search: string): Promise<string[] | undefined> {
      if ([...search].length < 3) return Promise.resolve(undefined);
      return dialect === 'sqlite' ? onSqlite(tenantId, search) : onPostgres(tenantId, search);
    },
  };
}
