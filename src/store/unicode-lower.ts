/**
 * Case folding for a chat search on SQLite, whose lower() and LIKE fold ASCII letters only (an
 * "É" stays "É"): a function of the connection (db.ts) that folds as JavaScript's toLowerCase,
 * as the search itself is folded (chat-search.ts). Used by queries only, never by the schema (a
 * trigger or an index would fail on a connection that lacks it, such as the sqlite3 shell's).
 */
export const UNICODE_LOWER = 'unicode_lower';

export function unicodeLower(text: unknown): unknown {
  return typeof text === 'string' ? text.toLowerCase() : text;
}
