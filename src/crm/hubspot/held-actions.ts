/**
 * Workflow actions held for time. An action the pipeline refuses only because of time (outside
 * the sending window, or every line at its first-touch gap / daily 30) is answered BLOCK with an
 * `hs_expiration_duration` (HubSpot's asynchronous custom action execution) and kept as a row;
 * this job sends it through the same pipeline once it can, then completes the action at HubSpot
 * (POST /automation/v4/actions/callbacks/{callbackId}/complete, SUCCESS or FAIL_CONTINUE with the
 * outputFields the synchronous answer gives). The project's daily cap is no wait: it stays an
 * immediate FAIL_CONTINUE (spec), also when the cap is what a held action meets later.
 *
 * Never twice: a row is claimed with an owner and a lease, and only its owner settles it; the
 * outcome is recorded (state `completing`) before HubSpot is told, so a failed completion is
 * retried without sending again; the send carries the pipeline key of the synchronous action
 * (`hubspot:workflow:<portal>:<callbackId>`), so a process that died after sending and before
 * recording is answered the message it sent (within the pipeline's six hours), not a second one.
 *
 * The hold lasts the estimated wait plus a day (at least one day, at most seven); the row gives
 * up sending an hour before HubSpot's hold ends so the FAIL_CONTINUE still reaches HubSpot.
 * Completion failures back off per row (HubSpot's Retry-After on 429; else 30 s doubling to 30
 * minutes) until the hold ends; HubSpot refusing a completion (4xx) is recorded, not retried.
 * Any other refusal of the pipeline completes FAIL_CONTINUE with what the synchronous answer
 * would have said; only a failure of ours (the database), and "still in progress" (1012: a send a
 * dead process left `sending`, until reconciliation settled it; and a send whose line's answer never
 * came, 3002 with its message `sending`), are tried again.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import { DomainError } from '../../errors/registry.js';
import { timeSortableId } from '../../domain/ids.js';
import type { Messaging } from '../../domain/messaging/index.js';
import type { Store, Tenant, HeldAction } from '../../store/index.js';
import { claimLoop } from '../../jobs/claim-loop.js';
import { HubSpotError, type HubSpotApi } from './client.js';
import type { TokenKeeper } from './tokens.js';
import { crmErrorName } from './errors.js';
import { DAILY_CAP_REACHED, FirstTouchLimitReached, isInProgress, isUnsettled, recordedSendOutcome, sendForCrm, type CrmSendOutcome, type LimitReached } from './send.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
/** The hold: the estimated wait plus this, within [MIN_HOLD_MS, MAX_HOLD_MS]. */
const HOLD_MARGIN_MS = DAY_MS;
const MIN_HOLD_MS = DAY_MS;
/** The longest a send refused for time waits (here, and a contact-creation auto-send): a week-late first text is worse than none. */
export const MAX_HOLD_MS = 7 * DAY_MS;
/** Not sent this long before the hold ends: FAIL_CONTINUE, while HubSpot still takes it. */
const COMPLETE_MARGIN_MS = HOUR_MS;
const LEASE_MS = 2 * MINUTE_MS;
const BATCH = 16;
const BACKOFF_BASE_MS = 30_000;
const BACKOFF_MAX_MS = 30 * MINUTE_MS;

/** Which refusals are only a matter of time. */
export const isHeldLimit = (err: unknown): err is FirstTouchLimitReached => err instanceof FirstTouchLimitReached && err.limit !== DAILY_CAP_REACHED;

/** How long until a send refused for time may be allowed (the pipeline's retry-after; a minute when it gives none). */
export const heldWaitMs = (refusal: FirstTouchLimitReached): number => Math.max(1000, (refusal.details.retryAfter ?? 60) * 1000);

/** What HubSpot is told when the action completes (recorded before it is told). */
export type HeldOutcome = { state: 'SUCCESS'; sent: CrmSendOutcome } | { state: 'FAIL_CONTINUE'; error: string; code: number; message: string };

/** What a held action came to, as its project sees it: HubSpot's state, and the error name of a FAIL_CONTINUE. */
export function heldOutcomeOf(a: Pick<HeldAction, 'outcome'>): { state: HeldOutcome['state']; error: string | null } | null {
  if (!a.outcome) return null;
  const o = JSON.parse(a.outcome) as HeldOutcome;
  return { state: o.state, error: o.state === 'FAIL_CONTINUE' ? o.error : null };
}

/** The outputFields a completion carries: the same as the synchronous answer's. */
export function completionFields(o: HeldOutcome): Record<string, string> {
  return o.state === 'SUCCESS' ? { hs_execution_state: 'SUCCESS', message_id: o.sent.messageId } : { hs_execution_state: 'FAIL_CONTINUE', error: o.error };
}

/** A held action as the workflow route answers it: BLOCK until `expiresAt`, the next try at `nextAttemptAt`. */
export interface Hold {
  reason: Exclude<LimitReached, typeof DAILY_CAP_REACHED>;
  nextAttemptAt: number;
  expiresAt: number;
}

/** ISO 8601 duration of whole minutes (at least one), as HubSpot reads hs_expiration_duration: P1DT2H30M. */
export function isoDuration(ms: number): string {
  const minutes = Math.max(1, Math.floor(ms / MINUTE_MS));
  const d = Math.floor(minutes / 1440);
  const h = Math.floor((minutes % 1440) / 60);
  const m = minutes % 60;
  const time = h || m ? `T${h ? `${h}H` : ''}${m ? `${m}M` : ''}` : '';
  return `P${d ? `${d}D` : ''}${time}`;
}

const backoff = (attempts: number) => Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.min(attempts, 10));

export function heldActions(deps: { store: Store; clock: Clock; api: HubSpotApi; tokens: TokenKeeper; messaging: Messaging; logger?: Logger }, opts: { pollMs: number }) {
  const { store, clock, api, tokens } = deps;
  const held = store.hubspotHeld;

  /** The pipeline key of the action: the synchronous attempt's, so a send is one send whoever makes it. */
  const pipelineKey = (portalId: string, callbackId: string) => `hubspot:workflow:${portalId}:${callbackId}`;

  /** Holds an action the pipeline refused for time; a retry of the same callbackId finds its row. */
  async function hold(tenant: Tenant, a: { portalId: string; callbackId: string; objectId: string; phone: string; text: string; linksContact: boolean }, refusal: FirstTouchLimitReached): Promise<Hold> {
    const now = clock.now();
    const waitMs = heldWaitMs(refusal);
    const holdMs = Math.ceil(Math.min(MAX_HOLD_MS, Math.max(MIN_HOLD_MS, waitMs + HOLD_MARGIN_MS)) / MINUTE_MS) * MINUTE_MS;
    const row = await held.hold({
      id: `hsw_${timeSortableId(Date.now())}`,
      tenant_id: tenant.id,
      portal_id: a.portalId,
      callback_id: a.callbackId,
      object_id: a.objectId,
      phone: a.phone,
      text: a.text,
      links_contact: a.linksContact ? 1 : 0,
      next_attempt_at: now + waitMs,
      send_by: now + holdMs - COMPLETE_MARGIN_MS,
      expires_at: now + holdMs,
      reason: refusal.limit,
      created_at: now,
      updated_at: now,
    });
    if (row.created_at === now) loop.wake();
    return { reason: refusal.limit as Hold['reason'], nextAttemptAt: row.next_attempt_at, expiresAt: row.expires_at };
  }

  /** A held action as a replay of its callbackId sees it: still held, or what it came to. */
  async function status(portalId: string, callbackId: string): Promise<HeldAction | undefined> {
    return held.get(portalId, callbackId);
  }

  /** The send: an outcome for HubSpot, a later attempt (`reason`: held again for time, by that limit), or nothing to tell (the portal is gone). */
  async function trySend(a: HeldAction): Promise<{ outcome: HeldOutcome } | { retryAt: number; error: string; reason?: Hold['reason'] } | { abandon: string }> {
    const now = clock.now();
    if (now >= a.send_by) {
      const message = `not sent: the sending window or the lines' first-touch limits held it until the hold ended (${new Date(a.expires_at).toISOString()})`;
      return { outcome: { state: 'FAIL_CONTINUE', error: 'hold expired', code: 4002, message } };
    }
    const install = await store.hubspot.getInstall(a.portal_id);
    if (!install || install.status !== 'active' || install.tenant_id !== a.tenant_id) return { abandon: `HubSpot portal ${a.portal_id} is ${install?.status ?? 'not installed'}: not sent, and HubSpot cannot be told` };
    const tenant = await store.tenants.getById(a.tenant_id);
    if (!tenant) return { abandon: 'the project no longer exists' };
    const fail = (err: DomainError): { outcome: HeldOutcome } => ({ outcome: { state: 'FAIL_CONTINUE', error: crmErrorName(err), code: Number(err.code), message: err.message } });
    if (tenant.status !== 'active') return fail(new DomainError(2005, `project "${tenant.slug}" is suspended`));
    try {
      const sent = await sendForCrm(deps, tenant, { phone: a.phone, text: a.text, idempotencyKey: pipelineKey(a.portal_id, a.callback_id) });
      if (a.links_contact) await store.hubspot.linkContact({ tenant_id: tenant.id, handle: a.phone, portal_id: a.portal_id, contact_id: a.object_id, linked_at: clock.now() });
      return { outcome: { state: 'SUCCESS', sent } };
    } catch (err) {
      const later = (ms: number) => ({ retryAt: Math.min(a.send_by, clock.now() + ms), error: (err as Error).message });
      if (isHeldLimit(err)) return { ...later(heldWaitMs(err)), reason: err.limit as Hold['reason'] };
      // Still in progress (1012): a message an earlier attempt left `sending` (its process died, or its line's
      // answer never came: unsettled) is being settled by reconciliation; tried again later, and answered from
      // that message once it is settled, never sent twice.
      if (isInProgress(err) || isUnsettled(err)) return later(backoff(a.attempts));
      // Anything else the pipeline says is what the synchronous answer would have said (the daily cap included).
      if (err instanceof DomainError) return fail(err);
      deps.logger?.error({ err, portal_id: a.portal_id, callback_id: a.callback_id }, 'held HubSpot workflow action: send failed unexpectedly; tried again later');
      return later(backoff(a.attempts));
    }
  }

  /** Tells HubSpot the outcome; one forced refresh on 401 (tokens.withToken, as every HubSpot call). */
  async function complete(a: HeldAction, owner: string): Promise<void> {
    const now = clock.now();
    const outcome = JSON.parse(a.outcome!) as HeldOutcome;
    const abandon = (error: string) => {
      deps.logger?.warn({ tenant_id: a.tenant_id, portal_id: a.portal_id, callback_id: a.callback_id, outcome: outcome.state, last_error: error }, 'held HubSpot workflow action could not be completed at HubSpot');
      return held.settle(a.id, owner, { state: 'abandoned', last_error: error }, clock.now());
    };
    const install = await store.hubspot.getInstall(a.portal_id);
    if (!install || install.status !== 'active') return void (await abandon(`HubSpot portal ${a.portal_id} is ${install?.status ?? 'not installed'}`));
    const tenant = await store.tenants.getById(a.tenant_id);
    const as = { portalId: a.portal_id, timezone: tenant?.timezone ?? 'UTC', kind: 'workflow_callback' as const };
    const fields = completionFields(outcome);
    try {
      await tokens.withToken(a.portal_id, (token) => api.completeCallback(token, a.callback_id, fields, as));
    } catch (err) {
      const error = (err as Error).message;
      const definite = (err instanceof HubSpotError && !err.retryable) || (err instanceof DomainError && (err.code === 2001 || err.code === 2010));
      if (definite) return void (await abandon(error));
      const next = now + (err instanceof HubSpotError && err.retryAfterSeconds !== undefined ? err.retryAfterSeconds * 1000 : backoff(a.attempts));
      if (next >= a.expires_at) return void (await abandon(`HubSpot did not take the completion before the hold ended: ${error}`));
      await held.settle(a.id, owner, { attempts: a.attempts + 1, next_attempt_at: next, last_error: error }, clock.now());
      return;
    }
    await held.settle(a.id, owner, { state: 'completed', completed_at: clock.now(), last_error: null }, clock.now());
  }

  async function work(a: HeldAction, owner: string): Promise<void> {
    // The batch is worked one row at a time: each row's lease counts from its own turn.
    if (!(await held.renew(a.id, owner, clock.now() + LEASE_MS))) return;
    if (a.state === 'held') {
      const r = await trySend(a);
      if ('abandon' in r) {
        deps.logger?.warn({ tenant_id: a.tenant_id, portal_id: a.portal_id, callback_id: a.callback_id, last_error: r.abandon }, 'held HubSpot workflow action given up');
        await held.settle(a.id, owner, { state: 'abandoned', last_error: r.abandon, reason: null }, clock.now());
        return;
      }
      if ('retryAt' in r) {
        // Held again for time: the limit it waits for now (a failure of ours keeps the one it had).
        await held.settle(a.id, owner, { attempts: a.attempts + 1, next_attempt_at: r.retryAt, last_error: r.error, ...(r.reason && { reason: r.reason }) }, clock.now());
        return;
      }
      // Recorded before HubSpot is told: from here on a retry only tells it, never sends.
      const outcome = JSON.stringify(r.outcome);
      const messageId = r.outcome.state === 'SUCCESS' ? r.outcome.sent.messageId : null;
      // No longer waiting for time: the reason goes with the held state.
      if (!(await held.record(a.id, owner, { state: 'completing', outcome, message_id: messageId, attempts: 0, last_error: null, reason: null }, clock.now()))) return;
      a = { ...a, state: 'completing', outcome, message_id: messageId, attempts: 0, reason: null };
    }
    await complete(a, owner);
  }

  /** One pass over the rows due now; the number claimed. */
  async function tick(): Promise<number> {
    const owner = randomBytes(12).toString('hex');
    const now = clock.now();
    const due = await held.claimDue(now, owner, now + LEASE_MS, BATCH);
    // One at a time, oldest first: held actions take the lines in the order they were held.
    for (const a of due) {
      await work(a, owner).catch((err) => deps.logger?.error({ err, portal_id: a.portal_id, callback_id: a.callback_id }, 'held HubSpot workflow action failed unexpectedly; retried when its lease ends'));
    }
    return due.length;
  }

  // Due times are on the business clock (the window opens by it): the poll bounds the wait.
  const loop = claimLoop({ tick, nextDueAt: async () => null, batch: BATCH, pollMs: opts.pollMs, label: 'HubSpot held workflow actions', logger: deps.logger });

  return {
    hold,
    status,
    /** The outcome a completed hold recorded (a replay of its callbackId answers it). */
    outcomeOf: (a: HeldAction): HeldOutcome | undefined => {
      if (!a.outcome) return undefined;
      const o = JSON.parse(a.outcome) as HeldOutcome;
      return o.state === 'SUCCESS' ? { state: 'SUCCESS', sent: recordedSendOutcome(o.sent) } : o;
    },
    tick,
    drain: loop.drain,
    start: loop.start,
    stop: loop.stop,
  };
}

export type HeldActions = ReturnType<typeof heldActions>;
