/**
 * The one door from the HubSpot integration into the send pipeline (the same as
 * POST /api/v1/send: first-touch rules, caps, window, line selection, idempotency,
 * events). Everything the pipeline's answer means to the CRM routes is read here,
 * so a change of its return type is a change of this file only.
 */
import { DomainError } from '../../errors/registry.js';
import type { Clock } from '../../clock.js';
import type { Messaging } from '../../domain/messaging/index.js';
import { DeliveryUnsettled, SendFailed } from '../../domain/messaging/failures.js';
import { localDayStart, msUntilWindowOpens, nextLocalDayStart } from '../../domain/messaging/limits.js';
import type { Store, Tenant } from '../../store/index.js';

export interface CrmSend {
  phone: string;
  text: string;
  phoneLineId?: string;
  /** The pipeline's own idempotency key, derived from the CRM's key: a retry after a crash never sends twice. */
  idempotencyKey: string;
}

/** What a send from the CRM produced (recorded under the CRM's key, answered again to a retry). */
export interface CrmSendOutcome {
  messageId: string;
  leadId: string;
  chatId: string;
  leadCreated: boolean;
  phoneLineId: string;
  /** The recipient, in E.164. */
  phone: string;
}

/** The error name the spec gives a reached project daily first-touch cap. */
export const DAILY_CAP_REACHED = 'daily cap reached' as const;

/** Which first-touch limit a pipeline refusal was: the CRM answers name it. */
export type LimitReached = typeof DAILY_CAP_REACHED | 'outside sending window' | 'lines saturated';

/** The pipeline's first-touch refusal (4002), naming the limit it hit; otherwise the pipeline's failure as it was. */
export class FirstTouchLimitReached extends DomainError {
  constructor(
    readonly limit: LimitReached,
    override readonly cause: DomainError,
  ) {
    super(cause.code, cause.message, { ...cause.details });
  }
}

export async function sendForCrm(deps: { messaging: Messaging; store: Store; clock: Clock }, tenant: Tenant, req: CrmSend): Promise<CrmSendOutcome> {
  try {
    const sent = await deps.messaging.send.send(tenant, { phone: req.phone, body: req.text, phoneLineId: req.phoneLineId, idempotencyKey: req.idempotencyKey });
    return { messageId: sent.message.id, leadId: sent.lead.id, chatId: sent.chat.id, leadCreated: sent.leadCreated, phoneLineId: sent.lineId, phone: req.phone };
  } catch (err) {
    if (isLimitRefusal(err)) {
      const reached = await limitReached(deps, tenant);
      throw new FirstTouchLimitReached(reached.limit, reached.cause ?? err);
    }
    throw err;
  }
}

/**
 * The pipeline's first-touch refusal (4002) says which limit only in words; which one it was is read
 * from the state instead (the order the pipeline checks them: window, project cap, lines). The one
 * place that knows the pipeline's error type (a DomainError, or SendFailed carrying one).
 */
function isLimitRefusal(err: unknown): err is DomainError {
  return err instanceof DomainError && err.code === 4002;
}

/**
 * Outside the sending window with the project's daily cap already reached: whether the cap is what
 * the send waits for. The cap counts per calendar day in the project's time zone, so a window that
 * opens again the same local day finds it still reached (waiting for the window would only end in
 * "daily cap reached" then); a window that opens on a later local day finds it reset.
 */
export function capOutlastsWindow(now: number, windowWaitMs: number, timezone: string): boolean {
  return now + windowWaitMs < nextLocalDayStart(now, timezone);
}

/** The limit, and the refusal to answer when it is not the pipeline's own (the window's words for what is the cap). */
async function limitReached(deps: { store: Store; clock: Clock }, tenant: Tenant): Promise<{ limit: LimitReached; cause?: DomainError }> {
  const now = deps.clock.now();
  const dayStart = localDayStart(now, tenant.timezone);
  const capReached = async () => (await deps.store.messages.tenantFirstTouches(tenant.id, dayStart)) >= tenant.daily_first_touch_cap;
  const windowWait = msUntilWindowOpens(now, tenant);
  if (windowWait > 0) {
    if (!capOutlastsWindow(now, windowWait, tenant.timezone) || !(await capReached())) return { limit: 'outside sending window' };
    const { start, end } = tenant.sending_window;
    const cause = new DomainError(4002, `daily cap reached: the project's daily first-touch cap (${tenant.daily_first_touch_cap}) is used up today, and the sending window (${start}–${end} ${tenant.timezone}) opens again before it resets`, {
      retryAfter: Math.ceil((nextLocalDayStart(now, tenant.timezone) - now) / 1000),
    });
    return { limit: DAILY_CAP_REACHED, cause };
  }
  if (await capReached()) return { limit: DAILY_CAP_REACHED };
  return { limit: 'lines saturated' };
}

/**
 * Whether a sendForCrm failure is "still in progress" (1012): an earlier attempt under the same
 * pipeline key left a message `sending` (its process died) that reconciliation has yet to settle.
 * No outcome: tried again later, it is answered from that message (or sends, if it never left).
 */
export const isInProgress = (err: unknown): err is DomainError => err instanceof DomainError && err.code === 1012;

/**
 * Whether a sendForCrm failure is a send whose line's answer never came (503 / 3002, a timeout): its
 * message stays `sending` and may have gone out. No outcome either, as 1012: tried again later under
 * the same pipeline key, it is answered 1012 until reconciliation settled it, then from that message
 * (or sent, if it never left). A final failure it is not.
 */
export const isUnsettled = (err: unknown): err is DomainError => err instanceof SendFailed && err.cause instanceof DeliveryUnsettled;

/** Whether a sendForCrm failure is the project's daily first-touch cap. */
export function isDailyCapReached(err: unknown): boolean {
  return err instanceof FirstTouchLimitReached && err.limit === DAILY_CAP_REACHED;
}

/** A send outcome recorded before outcomes were recorded in domain terms (the CRM answer's names; kept up to 7 days). */
interface LegacyRecordedSend {
  message_id: string;
  lead_id: string;
  chat_id: string;
  lead_created: boolean;
  phone_line_id: string;
  phone: string;
}

/** A recorded send outcome (JSON, as `once` recorded it), whichever version recorded it. */
export function recordedSendOutcome(recorded: unknown): CrmSendOutcome {
  const r = recorded as CrmSendOutcome | LegacyRecordedSend;
  if (!('message_id' in r)) return r;
  return { messageId: r.message_id, leadId: r.lead_id, chatId: r.chat_id, leadCreated: r.lead_created, phoneLineId: r.phone_line_id, phone: r.phone };
}
