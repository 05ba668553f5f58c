/**
 * Whether a send to a contact now would be a first touch and would be allowed
 * (window, project daily cap, lines' 10-minute gap and daily 30), read without
 * reserving anything: what the contact card shows before the rep clicks.
 */
import type { NumericErrorCode } from '../../errors/registry.js';
import type { Store, Tenant, PhoneLine } from '../../store/index.js';
import { FIRST_TOUCH_GAP_MS, FIRST_TOUCH_PER_LINE_PER_DAY, localDayStart, msUntilWindowOpens, nextLocalDayStart } from '../../domain/messaging/limits.js';
import { DAILY_CAP_REACHED, capOutlastsWindow } from './send.js';

/** The card's short name for what stops a send now ("daily cap reached" is the spec's). */
export type SendBlock = 'no line' | 'outside sending window' | typeof DAILY_CAP_REACHED | 'line gap' | 'no usable phone';

/** Why a send now would be refused: the short name, the code the send would fail with, and when to try again. */
export interface SendRefusal {
  error: SendBlock;
  code: NumericErrorCode;
  reason: string;
  /** Seconds until the send could be allowed (as ErrorDetails.retryAfter). */
  retryAfter?: number;
}

/** What the card says of a send now; `wouldBeFirstTouch` is null when the contact has no usable phone. */
export interface SendCheck {
  wouldBeFirstTouch: boolean | null;
  allowedNow: boolean;
  refusal?: SendRefusal;
}

/** A first-touch check: a contact with a phone always has an answer. */
export type FirstTouchCheck = SendCheck & { wouldBeFirstTouch: boolean };

const refused = (refusal: SendRefusal): FirstTouchCheck => ({ wouldBeFirstTouch: true, allowedNow: false, refusal });

/** `pinnedLine`: the contact has a conversation on a line; `lines` are then that line, or (gone) the lines it would move to. */
export async function firstTouchPreview(store: Store, tenant: Tenant, lines: PhoneLine[], now: number, pinnedLine: boolean): Promise<FirstTouchCheck> {
  if (pinnedLine) {
    if (lines.length > 0) return { wouldBeFirstTouch: false, allowedNow: true };
    return { wouldBeFirstTouch: false, allowedNow: false, refusal: { error: 'no line', code: 3002, reason: 'neither the conversation\'s line nor any other line of this project can send right now' } };
  }
  const dayStart = localDayStart(now, tenant.timezone);
  const nextDay = nextLocalDayStart(now, tenant.timezone);
  const capReached = async () => (await store.messages.tenantFirstTouches(tenant.id, dayStart)) >= tenant.daily_first_touch_cap;
  const capRefusal = () => refused({ error: DAILY_CAP_REACHED, code: 4002, reason: `the project's daily first-touch cap (${tenant.daily_first_touch_cap}) is used up`, retryAfter: Math.ceil((nextDay - now) / 1000) });
  const wait = msUntilWindowOpens(now, tenant);
  if (wait > 0) {
    // A window that opens again today finds the cap still reached: the cap is what stops the send (send.ts).
    if (capOutlastsWindow(now, wait, tenant.timezone) && (await capReached())) return capRefusal();
    return refused({ error: 'outside sending window', code: 4002, reason: `outside the project's sending window (${tenant.sending_window.start}–${tenant.sending_window.end} ${tenant.timezone})`, retryAfter: Math.ceil(wait / 1000) });
  }
  if (await capReached()) return capRefusal();
  if (lines.length === 0) return refused({ error: 'no line', code: 3002, reason: 'no active phone line of this project can send' });
  const freeAt = await Promise.all(
    lines.map(async (l) => {
      const [today, last] = await Promise.all([store.messages.firstTouchStats(l.id, dayStart), store.lineRuntime.lastFirstTouch(l.id)]);
      if (today.count >= FIRST_TOUCH_PER_LINE_PER_DAY) return nextDay;
      return last === null ? now : Math.max(now, last + FIRST_TOUCH_GAP_MS);
    }),
  );
  const earliest = Math.min(...freeAt);
  if (earliest <= now) return { wouldBeFirstTouch: true, allowedNow: true };
  return refused({ error: 'line gap', code: 4002, reason: 'every phone line is at its first-touch limit right now', retryAfter: Math.max(1, Math.ceil((earliest - now) / 1000)) });
}
