/**
 * Contact-creation auto-sends. The webhook only records each `contact.creation`
 * event (one row per portal and contact: HubSpot's retries and duplicate
 * deliveries find it taken) and answers; this worker then claims pending rows
 * with a lease (so several processes share them and a crashed one's rows come
 * back) and works each: 1 HubSpot call (read the contact), the template, the send.
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
import { CONTACT_PROPERTIES, contactPhone, renderTemplate } from './contact.js';
import { DAILY_CAP_REACHED, isDailyCapReached, sendForCrm } from './send.js';
import { claimLoop } from '../../jobs/claim-loop.js';

const LEASE_MS = 60_000;
const BATCH = 16;
/** HubSpot 429/5xx/network while reading the contact: tried again, at most this many times in all. */
const MAX_ATTEMPTS = 5;

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
        next_attempt_at: Date.now(),
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
    let contact;
    try {
      const token = await deps.tokens.accessToken(a.portal_id);
      contact = await deps.api.readContact(token, a.object_id, CONTACT_PROPERTIES, { portalId: a.portal_id, timezone: tenant.timezone, kind: 'contact_created' });
    } catch (err) {
      const retryable = (err instanceof HubSpotError && err.retryable) || (err instanceof DomainError && err.retryable);
      if (retryable && a.attempts < MAX_ATTEMPTS) {
        const after = err instanceof HubSpotError && err.retryAfterSeconds ? err.retryAfterSeconds * 1000 : 2 ** a.attempts * 1000;
        return store.hubspot.settleAutoSend(a.id, { next_attempt_at: Date.now() + after, reason: (err as Error).message }, now());
      }
      if (err instanceof HubSpotError && err.failure === 'not_found') return fail(`contact ${a.object_id} no longer exists in HubSpot`, 2011);
      // The card's codes for HubSpot's refusals: 2010 reconnect (401), 2005 scopes (403).
      const refusal = fromHubSpot(err);
      return fail((refusal as Error).message, refusal instanceof DomainError ? Number(refusal.code) : 3004);
    }
    const phone = contactPhone(contact.properties);
    if (!phone.normalized) return fail(`no usable phone: ${phone.reason}`, 1013);
    const text = renderTemplate(install.auto_send.template!, contact.properties);
    if (!text) return fail('the template rendered empty for this contact', 1001);
    try {
      const sent = await sendForCrm(deps, tenant, {
        phone: phone.normalized,
        text,
        phoneLineId: install.auto_send.line_id ?? undefined,
        idempotencyKey: `hubspot:contact:${a.portal_id}:${a.object_id}`,
      });
      await store.hubspot.linkContact({ tenant_id: tenant.id, handle: phone.normalized, portal_id: a.portal_id, contact_id: a.object_id, linked_at: now() });
      await store.hubspot.settleAutoSend(a.id, { status: 'sent', reason: null, code: null, message_id: sent.messageId }, now());
    } catch (err) {
      if (isDailyCapReached(err)) return fail(DAILY_CAP_REACHED, 4002);
      if (err instanceof DomainError) return fail(err.message, Number(err.code));
      throw err;
    }
  }

  /** One pass over what is due now; the number claimed. */
  async function tick(): Promise<number> {
    const due = await store.hubspot.claimAutoSends(Date.now(), LEASE_MS, BATCH);
    await Promise.all(due.map((a) => work(a).catch((err) => deps.logger?.error({ err, auto_send: a.id, portal_id: a.portal_id }, 'auto-send failed unexpectedly; retried when its lease ends'))));
    return due.length;
  }

  const loop = claimLoop({ tick, nextDueAt: () => store.hubspot.nextAutoSendDue(), batch: BATCH, pollMs: opts.pollMs, label: 'auto-send worker', logger: deps.logger });

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
