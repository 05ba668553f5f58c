/**
 * The one door from the HubSpot integration into the send pipeline (the same as
 * POST /api/v1/send: first-touch rules, caps, window, line selection, idempotency,
 * events). Everything the pipeline's answer means to the CRM routes is read here,
 * so a change of its return type is a change of this file only.
 */
import { DomainError } from '../../errors/registry.js';
import type { Clock } from '../../clock.js';
import type { Messaging } from '../../domain/messaging/index.js';
import { localDayStart, msUntilWindowOpens } from '../../domain/messaging/limits.js';
import type { Store, Tenant } from '../../store/index.js';

export interface CrmSend {
  phone: string;
  text: string;
  phone_line_id?: string;
  /** The pipeline's own idempotency key, derived from the CRM's key: a retry after a crash never sends twice. */
  idempotency_key: string;
}

/** What the CRM answers and records of a send (wire names: the CRM answers and stored results use them). */
export interface CrmSent {
  message_id: string;
  lead_id: string;
  chat_id: string;
  lead_created: boolean;
  phone_line_id: string;
}

/** The error name the spec gives a reached project daily first-touch cap. */
export const DAILY_CAP_REACHED = 'daily cap reached' as const;

/** Which first-touch limit a pipeline refusal was: the CRM answers name it. */
export type LimitReached = 'daily cap reached' | 'outside sending window' | 'lines saturated';
const limitOf = new WeakMap<object, LimitReached>();

export async function sendForCrm(deps: { messaging: Messaging; store: Store; clock: Clock }, tenant: Tenant, req: CrmSend): Promise<CrmSent> {
  try {
    const sent = await deps.messaging.send.send(tenant, { phone: req.phone, body: req.text, phoneLineId: req.phone_line_id, idempotencyKey: req.idempotency_key });
    return { message_id: sent.message.id, lead_id: sent.lead.id, chat_id: sent.chat.id, lead_created: sent.leadCreated, phone_line_id: sent.lineId };
  } catch (err) {
    if (isLimitRefusal(err)) limitOf.set(err, await limitReached(deps, tenant));
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

async function limitReached(deps: { store: Store; clock: Clock }, tenant: Tenant): Promise<LimitReached> {
  const now = deps.clock.now();
  if (msUntilWindowOpens(now, tenant) > 0) return 'outside sending window';
  if ((await deps.store.messages.tenantFirstTouches(tenant.id, localDayStart(now, tenant.timezone))) >= tenant.daily_first_touch_cap) return DAILY_CAP_REACHED;
  return 'lines saturated';
}

/** The first-touch limit a sendForCrm failure hit, if it was one. */
export function limitReachedBy(err: unknown): LimitReached | undefined {
  return typeof err === 'object' && err !== null ? limitOf.get(err) : undefined;
}

/** Whether a sendForCrm failure is the project's daily first-touch cap. */
export function isDailyCapReached(err: unknown): boolean {
  return limitReachedBy(err) === DAILY_CAP_REACHED;
}
