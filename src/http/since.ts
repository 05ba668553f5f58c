/** `?since=` as the event routes take it: ISO 8601 text to epoch ms. */
import { DomainError } from '../errors/registry.js';
import { ISO_8601_PATTERN } from '../contract/event.js';

/** The contract's pattern for since (the query schema checks it first; a direct caller may not). */
const ISO_8601 = new RegExp(ISO_8601_PATTERN);

/**
 * `?since=` as epoch ms. Only ISO 8601 is accepted: Date.parse alone would also take `0`,
 * `March 7, 2020` or `2020-02-30`, each read some way the client may not have meant.
 */
export function parseSince(since: string | undefined): number | undefined {
  if (since === undefined) return undefined;
  const m = ISO_8601.exec(since);
  const ms = m ? Date.parse(since.replace(/ (?=\d{2}:?\d{2}$)/, '+')) : NaN;
  const [year, month, day] = m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [0, 0, 0];
  // Date.parse rolls 2020-02-30 over to March; a day the month does not have is refused.
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (!m || Number.isNaN(ms) || month < 1 || month > 12 || day < 1 || day > daysInMonth) {
    throw new DomainError(1002, 'since must be an ISO 8601 date or date-time with a time zone, e.g. 2025-06-01T12:00:00Z');
  }
  return ms;
}
