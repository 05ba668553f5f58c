/**
 * Whether a send to a contact now would be a first touch and would be allowed
 * (window, project daily cap, lines' 10-minute gap and daily 30), read without
 * reserving anything: what the contact card shows before the rep clicks.
 */
import type { Store, Tenant, PhoneLine } from '../../store/index.js';
import { FIRST_TOUCH_GAP_MS, FIRST_TOUCH_PER_LINE_PER_DAY, localDayStart, msUntilWindowOpens } from '../../domain/messaging/limits.js';
import { DAILY_CAP_REACHED } from './send.js';

const DAY_MS = 86_400_000;

export interface FirstTouchPreview {
  first_touch: boolean;
  allowed: boolean;
  error?: string;
  code?: number;
  reason?: string;
  retry_after?: number;
}

export async function firstTouchPreview(store: Store, tenant: Tenant, lines: PhoneLine[], now: number, pinnedLine: boolean): Promise<FirstTouchPreview> {
  if (pinnedLine) return { first_touch: false, allowed: lines.length > 0, ...(lines.length === 0 && { error: 'no line', code: 3002, reason: 'the conversation\'s line cannot send right now' }) };
  const wait = msUntilWindowOpens(now, tenant);
  if (wait > 0) {
    return { first_touch: true, allowed: false, error: 'outside sending window', code: 4002, reason: `outside the project's sending window (${tenant.sending_window.start}–${tenant.sending_window.end} ${tenant.timezone})`, retry_after: Math.ceil(wait / 1000) };
  }
  const dayStart = localDayStart(now, tenant.timezone);
  if ((await store.messages.tenantFirstTouches(tenant.id, dayStart)) >= tenant.daily_first_touch_cap) {
    return { first_touch: true, allowed: false, error: DAILY_CAP_REACHED, code: 4002, reason: `the project's daily first-touch cap (${tenant.daily_first_touch_cap}) is used up`, retry_after: Math.ceil((dayStart + DAY_MS - now) / 1000) };
  }
  if (lines.length === 0) return { first_touch: true, allowed: false, error: 'no line', code: 3002, reason: 'no active phone line of this project can send' };
  const freeAt = await Promise.all(
    lines.map(async (l) => {
      const [today, last] = await Promise.all([store.messages.firstTouchStats(l.id, dayStart), store.lineRuntime.lastFirstTouch(l.id)]);
      if (today.count >= FIRST_TOUCH_PER_LINE_PER_DAY) return dayStart + DAY_MS;
      return last === null ? now : Math.max(now, last + FIRST_TOUCH_GAP_MS);
    }),
  );
  const earliest = Math.min(...freeAt);
  if (earliest <= now) return { first_touch: true, allowed: true };
  return { first_touch: true, allowed: false, error: 'line gap', code: 4002, reason: 'every phone line is at its first-touch limit right now', retry_after: Math.max(1, Math.ceil((earliest - now) / 1000)) };
}
