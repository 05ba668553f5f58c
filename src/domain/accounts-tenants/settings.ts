/** Validation of tenant settings: slug, timezone, sending window, caps, rate limit. */
import { DomainError } from '../../errors/registry.js';

export const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
export const HHMM = /^(?:[01]\d|2[0-3]):[0-5]\d$|^24:00$/;

/**
 * A slug as quoted back in an error: cut past the longest valid slug, since it may come from a
 * header of up to 16 KB (a message, and the log line with it, should not carry that).
 */
export function quotedSlug(slug: string): string {
  return `"${slug.length > 63 ? `${slug.slice(0, 63)}…` : slug}"`;
}

export function isValidSlug(slug: string): boolean {
  return SLUG.test(slug);
}

export function assertSlug(slug: string): void {
  if (!SLUG.test(slug)) {
    throw new DomainError(1002, `slug ${quotedSlug(slug)} is invalid: use 1-63 lowercase letters, digits and inner dashes`);
  }
}

/**
 * Names the runtime's time-zone data (ICU) takes that are not in the IANA database: Java's old
 * three-letter IDs and the SystemV zones (and, below, UTC offsets). They mislead ("BST" is
 * Asia/Dhaka, not British Summer Time; "IST" India; "CST" Chicago; "AST" Anchorage; "ECT"
 * Paris), so a new setting may not use them. IANA's own short names (UTC, GMT, EST, MST, HST,
 * CET, EET, WET, MET, PRC, ROC, ROK) and links (US/Eastern, Etc/GMT+5, …) are IANA names and
 * stay allowed, in any letter case.
 */
const NOT_IANA = new Set(['ACT', 'AET', 'AGT', 'ART', 'AST', 'BET', 'BST', 'CAT', 'CNT', 'CST', 'CTT', 'EAT', 'ECT', 'IET', 'IST', 'JST', 'MIT', 'NET', 'NST', 'PLT', 'PNT', 'PRT', 'PST', 'SST', 'VST']);

/**
 * A time zone the service can compute in, as it is stored and shown: a zone's name in the letter
 * case the runtime's time zone data gives it ("america/new_york" is "America/New_York", "utc"
 * "UTC"). A link is kept as given: the runtime would name it by ICU's canonical zone, which is
 * sometimes the zone's old name ("Asia/Kolkata" would become "Asia/Calcutta", "Europe/Kyiv"
 * "Europe/Kiev"). `asNewSetting`: it is being set now, so it must also be an IANA name (a zone
 * saved before this rule keeps working, as it was saved, and other settings can still change).
 */
export function canonicalTimezone(tz: string, asNewSetting = true): string {
  const invalid = () => new DomainError(1002, `timezone "${tz}" is not an IANA time zone (e.g. "America/New_York")`);
  let canonical: string;
  try {
    canonical = new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    throw invalid();
  }
  if (!asNewSetting) return tz;
  // An offset ("+05:00") names no zone's rules; Node 24's Intl takes it (ECMA-402 offset time
  // zones), Node 20's does not.
  if (NOT_IANA.has(tz.toUpperCase()) || /^systemv\//i.test(tz) || /^[+\-\u2212]/.test(tz)) throw invalid();
  return canonical.toLowerCase() === tz.toLowerCase() ? canonical : tz;
}

export function assertSendingWindow(w: { start: string; end: string }): void {
  if (!HHMM.test(w.start) || w.start === '24:00') {
    throw new DomainError(1002, `sending_window.start "${w.start}" must be HH:MM from 00:00 to 23:59`);
  }
  if (!HHMM.test(w.end)) throw new DomainError(1002, `sending_window.end "${w.end}" must be HH:MM from 00:00 to 24:00`);
  if (w.start === w.end) throw new DomainError(1002, 'sending_window start and end are equal: the window would be empty');
}

export function assertRateLimit(r: { per_second: number; burst: number }): void {
  if (!(r.per_second > 0) || !Number.isFinite(r.per_second)) {
    throw new DomainError(1002, 'rate_limit.per_second must be a positive number');
  }
  if (!Number.isInteger(r.burst) || r.burst < 1) throw new DomainError(1002, 'rate_limit.burst must be an integer ≥ 1');
}

export const TENANT_DEFAULTS = {
  timezone: 'UTC',
  sending_window: { start: '00:00', end: '24:00' },
  daily_first_touch_cap: 100,
  rate_limit: { per_second: 20, burst: 40 },
  status: 'active' as const,
  crm_install_slots: 1,
};
