/**
 * The list cursors that page by time: `<ms>|<id>` in base64url, opaque to clients. One decoder,
 * so every such list refuses the same forgeries: anything but a next_cursor a list gave is
 * 400 / 1002, also a time no column holds (1.5, 1e20 or -1 reached PostgreSQL's bigint as a 500).
 */
import { DomainError } from '../../errors/registry.js';

export const encodeTimeCursor = (atMs: number, id: string): string => Buffer.from(`${atMs}|${id}`).toString('base64url');

export function decodeTimeCursor(cursor: string): { atMs: number; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  // Milliseconds: digits only, at most 15.
  if (!at || !id || !/^\d{1,15}$/.test(at)) throw new DomainError(1002, 'cursor is not a value returned as next_cursor');
  return { atMs: Number(at), id };
}
