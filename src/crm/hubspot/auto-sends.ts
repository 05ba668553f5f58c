/**
 * Contact-creation auto-sends. The webhook only records each `contact.creation`
 * event (one row per portal and contact: HubSpot's retries and duplicate
 * deliveries find it taken) and answers; this worker then claims pending rows
 * with a lease (so several processes share them and a crashed one's rows come
 * back) and works each: 1 HubSpot call (read the contact), the template, the send.
 *
 * A send refused only for time (outside the sending window, every line at its first-touch gap
 * or daily 30) waits: the row stays pending with the phone and text it rendered and a
 * `next_attempt_at` (business clock), and is sent when that comes, under the same pipeline key
 * (a process that died after sending is answered that message, not a second one), for at most
 * MAX_HOLD_MS after the contact was created (then `failed`, 4002). The project's daily cap is no
 * wait: the spec records it `failed` and skips the send.
 *
 * The pipeline's "still in progress" (1012: a process died after its message went to the line,
 * before the line answered) waits the same way until reconciliation settled that message; the
 * retry is then answered from it (`sent`, its message_id). A suspended project sends nothing
 * (`failed`, 2005), as the card and the workflow action refuse. A failure of ours is tried again
 * with a backoff, at most MAX_ATTEMPTS claims in all, then `failed` (3001): never a loop.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import { DomainError } from '../../errors/registry.js';
import { timeSortableId } from '../../domain/ids.js';
import type { Messaging } from '../../domain/messaging/index.js';
import type { Store, HubSpotAutoSend } from '../../store/index.js';
import { HubSpotError, type HubSpotApi } from './client.js';
import type { TokenKeeper } from './tokens.js';
import { fromHubSpot } from './errors.js';
import { contactPhone, propertiesFor, renderTemplate } from './contact.js';
import { DAILY_CAP_REACHED, isDailyCapReached, isInProgress, isUnsettled, sendForCrm, type FirstTouchLimitReached } from './send.js';
import { MAX_HOLD_MS, heldWaitMs, isHeldLimit } from './held-actions.js';
import { claimLoop } from '../../jobs/claim-loop.js';

const LEASE_MS = 60_000;
const BATCH = 16;
/** HubSpot 429/5xx/network while reading the contact, or a failure of ours: tried again, at most this many times in all. */
const MAX_ATTEMPTS = 5;
/** When to try again a send still in progress (1012) that gives no Retry-After: about when reconciliation's sweep has looked. */
const IN_PROGRESS_RETRY_S = 30;
/** A time limit in the words of a failed auto-send's reason ("not sent: still …"). */
const STILL = { 'outside sending window': 'outside the sending window', 'lines saturated': 'no line free for a first touch' } as const;

export interface WebhookEvent {
  eventId?: number | string;
  portalId?: number | string;
  objectId?: number | string;
  subscriptionType?: string;
  attemptNumber?: number;
}

/** What a webhook batch came to: contact.creation events recorded now, already recorded, or ignored. */
export interface WebhookReceipt {
  received: number;
  recorded: number;
  duplicates: number;
  ignored: number;
}

/** A pending auto-send refused for time (what the tenant sees): its next attempt, and when it is given up. */
export function waitingOf(a: HubSpotAutoSend): { nextAttemptAt: number; givesUpAt: number } | null {
  return a.status === 'pending' && a.code === 4002 ? { nextAttemptAt: a.next_attempt_at, givesUpAt: a.created_at + MAX_HOLD_MS } : null;
}

export function autoSends(deps: { store: Store; clock: Clock; api: HubSpotApi; tokens: TokenKeeper; messaging: Messaging; logger?: Logger }, opts: { pollMs: number }) {
  const { store, clock } = deps;

  /** Records the batch's contact.creation events; everything else is acknowledged and ignored. */
  async function record(events: WebhookEvent[]): Promise<WebhookReceipt> {
    let recorded = 0;
    let duplicates = 0;
    let ignored = 0;
    for (const e of events) {
      if (e?.subscriptionType !== 'contact.creation' || e.portalId === undefined || e.objectId === undefined) {
        ignored++;
        continue;
      }
      const portalId = String(e.portalId);
      const install = await store.hubspot.getInstall(portalId);
      if (!install || install.status === 'uninstalled') {
        ignored++;
        continue;
      }
      const on = install.auto_send.enabled && Boolean(install.auto_send.template?.trim());
      const now = clock.now();
      const inserted = await store.hubspot.recordAutoSend({
        id: `hsa_${timeSortableId(Date.now())}`,
        tenant_id: install.tenant_id,
        portal_id: portalId,
        object_id: String(e.objectId),
        event_id: String(e.eventId ?? ''),
        status: on ? 'pending' : 'skipped',
        reason: on ? null : 'auto-send is off for this portal (PATCH /api/v1/integrations/hubspot/{portal_id} with auto_send)',
        code: null,
        message_id: null,
        attempts: 0,
        next_attempt_at: now,
        lease_until: null,
        created_at: now,
        updated_at: now,
      });
      if (inserted) recorded++;
      else duplicates++;
    }
    if (recorded) loop.wake();
    return { received: events.length, recorded, duplicates, ignored };
  }

  /** The contact's phone and the rendered text: read once (1 HubSpot call), kept on the row while it waits. */
  async function target(a: HubSpotAutoSend, template: string, timezone: string): Promise<{ phone: string; text: string } | { retryAt: number; reason: string } | { fail: string; code: number }> {
    if (a.phone && a.text) return { phone: a.phone, text: a.text };
    let contact;
    try {
      contact = await deps.tokens.withToken(a.portal_id, (token) => deps.api.readContact(token, a.object_id, propertiesFor(template), { portalId: a.portal_id, timezone, kind: 'contact_created' }));
    } catch (err) {
      const retryable = (err instanceof HubSpotError && err.retryable) || (err instanceof DomainError && err.retryable);
      if (retryable && a.attempts < MAX_ATTEMPTS) {
        const after = err instanceof HubSpotError && err.retryAfterSeconds ? err.retryAfterSeconds * 1000 : 2 ** a.attempts * 1000;
        return { retryAt: clock.now() + after, reason: (err as Error).message };
      }
      if (err instanceof HubSpotError && err.failure === 'not_found') return { fail: `contact ${a.object_id} no longer exists in HubSpot`, code: 2011 };
      // The card's codes for HubSpot's refusals: 2010 reconnect (401), 2005 scopes (403).
      const refusal = fromHubSpot(err);
      return { fail: (refusal as Error).message, code: refusal instanceof DomainError ? Number(refusal.code) : 3004 };
    }
    const phone = contactPhone(contact.properties);
    if (!phone.normalized) return { fail: `no usable phone: ${phone.reason}`, code: 1013 };
    const text = renderTemplate(template, contact.properties);
    if (!text) return { fail: 'the template rendered empty for this contact', code: 1001 };
    return { phone: phone.normalized, text };
  }

  /** A refusal for time: pending until the pipeline says it may be allowed, or failed once the wait is over. */
  async function wait(a: HubSpotAutoSend, t: { phone: string; text: string }, refusal: FirstTouchLimitReached): Promise<void> {
    const now = clock.now();
    const end = a.created_at + MAX_HOLD_MS;
    if (now >= end) {
      // In words, like the waiting reason: the row's own time fields say when, each reader in its own format.
      const still = STILL[refusal.limit as keyof typeof STILL] ?? refusal.limit;
      return store.hubspot.settleAutoSend(a.id, { status: 'failed', code: 4002, reason: `not sent: still ${still} ${MAX_HOLD_MS / 86_400_000} days after the contact was created: ${refusal.message}` }, now);
    }
    const at = Math.min(end, now + heldWaitMs(refusal));
    // Only why: the times are the row's own fields (`waiting`), shown by each reader in its own format.
    const reason = `waiting (${refusal.limit}): sent when it is allowed`;
    // Waiting is no failure: the attempts (claims that failed) count from zero again.
    await store.hubspot.settleAutoSend(a.id, { next_attempt_at: at, code: 4002, reason, phone: t.phone, text: t.text, attempts: 0 }, now);
  }

  /**
   * Still in progress (1012): a process that died mid-send, or a line whose answer never came
   * (unsettled, 3002), left the message `sending`; tried again
   * once reconciliation may have settled it, with the same phone and text (the same pipeline
   * request), so it is answered from that message; given up, like a wait for time, MAX_HOLD_MS
   * after the contact was created.
   */
  async function settling(a: HubSpotAutoSend, t: { phone: string; text: string }, err: DomainError): Promise<void> {
    const now = clock.now();
    const end = a.created_at + MAX_HOLD_MS;
    if (now >= end) return store.hubspot.settleAutoSend(a.id, { status: 'failed', code: 1012, reason: `not sent: ${err.message}` }, now);
    const at = Math.min(end, now + (err.details.retryAfter ?? IN_PROGRESS_RETRY_S) * 1000);
    await store.hubspot.settleAutoSend(a.id, { next_attempt_at: at, code: null, reason: 'waiting: an earlier attempt\'s send is still being confirmed with the line', phone: t.phone, text: t.text, attempts: 0 }, now);
  }

  /** A failure of ours (a bug, the database): tried again later, at most MAX_ATTEMPTS claims in all, then `failed` (3001). */
  async function unexpected(a: HubSpotAutoSend, err: unknown): Promise<void> {
    const now = clock.now();
    const error = err instanceof Error ? err.message : String(err);
    deps.logger?.error({ err, auto_send: a.id, portal_id: a.portal_id, attempts: a.attempts }, 'auto-send failed unexpectedly');
    if (a.attempts >= MAX_ATTEMPTS) {
      return store.hubspot.settleAutoSend(a.id, { status: 'failed', code: 3001, reason: `not sent: failed unexpectedly ${a.attempts} times (${error.slice(0, 200)})` }, now);
    }
    await store.hubspot.settleAutoSend(a.id, { next_attempt_at: now + 2 ** a.attempts * 1000, reason: `failed unexpectedly; tried again: ${error.slice(0, 200)}` }, now);
  }

  async function work(a: HubSpotAutoSend): Promise<void> {
    const now = () => clock.now();
    const fail = (reason: string, code: number | null) => store.hubspot.settleAutoSend(a.id, { status: 'failed', reason, code }, now());
    const install = await store.hubspot.getInstall(a.portal_id);
    if (!install || install.status !== 'active' || install.tenant_id !== a.tenant_id) return fail(`HubSpot portal ${a.portal_id} is not connected (${install?.status ?? 'never installed'})`, 2001);
    if (!install.auto_send.enabled || !install.auto_send.template?.trim()) {
      return store.hubspot.settleAutoSend(a.id, { status: 'skipped', reason: 'auto-send was turned off before the contact was processed' }, now());
    }
    const tenant = await store.tenants.getById(a.tenant_id);
    if (!tenant) return fail('the project no longer exists', 2001);
    // As the card, the workflow action and a held action: a suspended project texts no one.
    if (tenant.status !== 'active') return fail(`not sent: project "${tenant.slug}" is suspended`, 2005);
    const t = await target(a, install.auto_send.template!, tenant.timezone);
    if ('retryAt' in t) return store.hubspot.settleAutoSend(a.id, { next_attempt_at: t.retryAt, reason: t.reason }, now());
    if ('fail' in t) return fail(t.fail, t.code);
    try {
      const sent = await sendForCrm(deps, tenant, {
        phone: t.phone,
        text: t.text,
        phoneLineId: install.auto_send.line_id ?? undefined,
        idempotencyKey: `hubspot:contact:${a.portal_id}:${a.object_id}`,
      });
      await store.hubspot.linkContact({ tenant_id: tenant.id, handle: t.phone, portal_id: a.portal_id, contact_id: a.object_id, linked_at: now() });
      await store.hubspot.settleAutoSend(a.id, { status: 'sent', reason: null, code: null, message_id: sent.messageId }, now());
    } catch (err) {
      if (isHeldLimit(err)) return wait(a, t, err);
      if (isInProgress(err) || isUnsettled(err)) return settling(a, t, err);
      if (isDailyCapReached(err)) return fail(DAILY_CAP_REACHED, 4002);
      if (err instanceof DomainError) return fail(err.message, Number(err.code));
      throw err;
    }
  }

  /** One pass over what is due now; the number claimed. */
  async function tick(): Promise<number> {
    const due = await store.hubspot.claimAutoSends(clock.now(), Date.now(), LEASE_MS, BATCH);
    await Promise.all(
      due.map((a) =>
        work(a)
          .catch((err) => unexpected(a, err))
          .catch((err) => deps.logger?.error({ err, auto_send: a.id, portal_id: a.portal_id }, 'auto-send failed unexpectedly; retried when its lease ends')),
      ),
    );
    return due.length;
  }

  // Due times are on the business clock; the loop's timers run on wall time.
  const nextDueAt = async () => {
    const at = await store.hubspot.nextAutoSendDue();
    return at === null ? null : at - (clock.now() - Date.now());
  };
  const loop = claimLoop({ tick, nextDueAt, batch: BATCH, pollMs: opts.pollMs, label: 'auto-send worker', logger: deps.logger });

  return {
    record,
    tick,
    /** Works everything due now (tests, and anything that wants the backlog gone). */
    drain: loop.drain,
    start: loop.start,
    stop: loop.stop,
  };
}

export type AutoSends = ReturnType<typeof autoSends>;
