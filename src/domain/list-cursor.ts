/**
 * The one codec of list cursors (`next_cursor`, given back as `?cursor=`), for every list that
 * pages with one: events, chats, a chat's messages, a HubSpot portal's auto-sends and held actions.
 *
 * A cursor is base64url text of `<list>|<time>|<as of>|<id>|<check>`: the list it belongs to, the
 * last row's sort key (its id, and for lists ordered by a time that time in ms; for a list whose
 * order moves with new activity, when the walk began) and a check over all of that and the list's
 * scope (the project; and the chat or the portal). So a cursor from another list, another project,
 * chat or portal, and one changed or cut short, is 400 / 1002 rather than a page from some other
 * point. The check is no secret and guards nothing: every list query is limited to the caller's
 * own rows whatever the cursor says; it turns a client's mistake into a clear answer.
 */
import { createHash } from 'node:crypto';
import { DomainError } from '../errors/registry.js';

/** The lists, each with its code in the cursor and what its position holds. */
const LISTS = {
  events: { code: 'ev', name: 'GET /api/v1/events', at: false, asOf: false },
  chats: { code: 'ch', name: 'GET /api/v1/chats', at: true, asOf: true },
  chatMessages: { code: 'cm', name: 'GET /api/v1/chats/{id}/messages', at: true, asOf: false },
  hubspotAutoSends: { code: 'ha', name: 'GET /api/v1/integrations/hubspot/{portal_id}/auto-sends', at: false, asOf: false },
  hubspotHeldActions: { code: 'hh', name: 'GET /api/v1/integrations/hubspot/{portal_id}/held-actions', at: false, asOf: false },
} as const;

export type ListKind = keyof typeof LISTS;

/** Where the next page starts: strictly after this row, in the list's order. */
export interface ListPosition {
  /** the last row's id */
  id: string;
  /** the last row's time (ms), for lists ordered by a time */
  atMs?: number;
  /** ms: the walk lists rows as they were then (the chat list, whose order moves with new messages) */
  asOfMs?: number;
}

const MALFORMED = 'cursor is not a value returned as next_cursor (changed or cut short?); omit it to start from the first page';
const NOT_OURS = 'cursor is not a next_cursor of this list for this project (from another project, chat or portal, or changed); omit it to start from the first page';

// Milliseconds: digits only, at most 15 (a time PostgreSQL's bigint and a JS number both hold exactly).
const MS = /^\d{1,15}$/;
// Every id a list pages by (evt_…, msg_…, ch_…, a UUID, hsa_…, hsw_…).
const ID = /^[A-Za-z0-9_-]{1,100}$/;
const BASE64URL = /^[A-Za-z0-9_-]{1,400}$/;

const checkOf = (scope: string, body: string) => createHash('sha256').update(`${scope}\n${body}`).digest('base64url').slice(0, 12);

const bodyOf = (kind: ListKind, p: ListPosition) => [LISTS[kind].code, p.atMs ?? '', p.asOfMs ?? '', p.id].join('|');

/** `scope`: what the list is of (the tenant's id, and the chat's or the portal's). */
export function encodeListCursor(kind: ListKind, scope: string, p: ListPosition): string {
  const body = bodyOf(kind, p);
  return Buffer.from(`${body}|${checkOf(scope, body)}`).toString('base64url');
}

/** The position a cursor names; 400 / 1002 unless it is a next_cursor this list gave for `scope`. */
export function decodeListCursor(kind: ListKind, scope: string, cursor: string): ListPosition {
  const list = LISTS[kind];
  if (!BASE64URL.test(cursor)) throw new DomainError(1002, MALFORMED);
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  // Base64url decoding skips what it cannot read: only the exact encoding of the text is one.
  if (Buffer.from(text).toString('base64url') !== cursor) throw new DomainError(1002, MALFORMED);
  const parts = text.split('|');
  if (parts.length !== 5) throw new DomainError(1002, MALFORMED);
  const [code, at, asOf, id, check] = parts as [string, string, string, string, string];
  const other = Object.values(LISTS).find((l) => l.code === code);
  if (!other) throw new DomainError(1002, MALFORMED);
  if (other !== list) throw new DomainError(1002, `cursor is a next_cursor of ${other.name}, not of ${list.name}; omit it to start from the first page`);
  const wellFormed = ID.test(id) && (list.at ? MS.test(at) : at === '') && (list.asOf ? MS.test(asOf) : asOf === '');
  if (!wellFormed) throw new DomainError(1002, MALFORMED);
  if (check !== checkOf(scope, `${code}|${at}|${asOf}|${id}`)) throw new DomainError(1002, NOT_OURS);
  return { id, ...(list.at && { atMs: Number(at) }), ...(list.asOf && { asOfMs: Number(asOf) }) };
}
