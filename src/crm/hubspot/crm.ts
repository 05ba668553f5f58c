/**
 * What HubSpot asks of us: the contact card (1 HubSpot call: read the contact),
 * the card's send (1 call), the workflow action (0 calls: all from the payload).
 * Sends go through the one adapter into the send pipeline (send.ts).
 */
import type { Clock } from '../../clock.js';
import type { HubSpotConfig } from '../../config.js';
import { DomainError, type ErrorCode } from '../../errors/registry.js';
import type { Messaging } from '../../domain/messaging/index.js';
import { sendsFrom } from '../../domain/lines/service.js';
import type { Store, Tenant, HubSpotInstall, Message, PhoneLine } from '../../store/index.js';
import type { HubSpotApi } from './client.js';
import type { TokenKeeper } from './tokens.js';
import { fromHubSpot, notConnected } from './errors.js';
import { CONTACT_PROPERTIES, contactPhone, renderTemplate, normalizePhone, type ContactPhone } from './contact.js';
import { firstTouchPreview, type SendCheck } from './first-touch.js';
import { isUnsettled, recordedSendOutcome, sendForCrm, type CrmSendOutcome } from './send.js';
import { once, ReplayedFailure, FOREVER, type OnceOutcome } from './once.js';
import { isHeldLimit, type HeldActions, type Hold } from './held-actions.js';

const CARD_MESSAGES = 20;
const CARD_SEND_KEY_TTL_MS = 24 * 3600_000;

export interface WorkflowPayload {
  callbackId: string;
  origin: { portalId: number | string };
  object: { objectId: number | string; objectType?: string; properties?: Record<string, string | null> };
  inputFields?: Record<string, unknown>;
}

/** What the contact card shows (HubSpot's app card fetch). */
export interface ContactCard {
  portalId: string;
  contact: { id: string; firstname: string | null; lastname: string | null; phone: ContactPhone };
  /** The contact's conversation, when there is one. */
  chatId: string | null;
  /** Its last messages, newest first. */
  messages: Message[];
  /** The project's lines that can send. */
  lines: PhoneLine[];
  send: SendCheck;
}

/** A CRM send's outcome; `duplicate` when it is the recorded outcome answered again. */
export type CrmSendResult = OnceOutcome<CrmSendOutcome>;

/** The workflow action's outcome: sent, or held for time (HubSpot is answered BLOCK). */
export type WorkflowResult = ({ kind: 'sent' } & CrmSendResult) | { kind: 'held'; hold: Hold; /** HubSpot's hold from now */ expiresInMs: number; duplicate: boolean };

/** What the workflow's callbackId record holds: the send, or that the action was held. */
type WorkflowRecord = CrmSendOutcome | { held: Hold['reason'] };
const readWorkflowRecord = (r: unknown): WorkflowRecord => (typeof r === 'object' && r !== null && 'held' in r ? (r as { held: Hold['reason'] }) : recordedSendOutcome(r));

export function hubspotCrm(deps: { store: Store; clock: Clock; config: HubSpotConfig; api: HubSpotApi; tokens: TokenKeeper; messaging: Messaging; held: HeldActions }) {
  const { store, clock, api, tokens, held } = deps;

  /** The portal's active install and its tenant; anything else is ok:false. */
  async function connected(portalId: string, appId?: string | number): Promise<{ install: HubSpotInstall; tenant: Tenant }> {
    if (deps.config.appId && appId !== undefined && String(appId) !== deps.config.appId) {
      throw new DomainError(2005, `this service serves HubSpot app ${deps.config.appId}, not ${appId}`);
    }
    const install = await store.hubspot.getInstall(portalId);
    if (!install || install.status === 'uninstalled') throw notConnected(portalId);
    if (install.status === 'token_invalid') throw new DomainError(2010, `HubSpot portal ${portalId} must be reconnected: its tokens were refused`);
    const tenant = await store.tenants.getById(install.tenant_id);
    if (!tenant) throw notConnected(portalId);
    if (tenant.status !== 'active') throw new DomainError(2005, `project "${tenant.slug}" is suspended`);
    return { install, tenant };
  }

  async function readContact(tenant: Tenant, portalId: string, objectId: string, kind: 'sidebar_load' | 'sidebar_send') {
    try {
      return await tokens.withToken(portalId, (token) => api.readContact(token, objectId, CONTACT_PROPERTIES, { portalId, timezone: tenant.timezone, kind }));
    } catch (err) {
      throw fromHubSpot(err);
    }
  }

  const link = (tenant: Tenant, handle: string, portalId: string, contactId: string) =>
    store.hubspot.linkContact({ tenant_id: tenant.id, handle, portal_id: portalId, contact_id: contactId, linked_at: clock.now() });

  return {
    connected,

    /** Everything the card renders: the contact's phone, its chat, the last messages, the lines, first-touch status. */
    async card(q: { portalId: string; associatedObjectId: string; associatedObjectType?: string; appId?: string }): Promise<ContactCard> {
      if (q.associatedObjectType && q.associatedObjectType.toUpperCase() !== 'CONTACT') {
        throw new DomainError(4099, `the card shows contacts, not ${q.associatedObjectType}`, { variant: 'context' });
      }
      const { tenant } = await connected(q.portalId, q.appId);
      const contact = await readContact(tenant, q.portalId, q.associatedObjectId, 'sidebar_load');
      const phone = contactPhone(contact.properties);
      const lines = (await store.lines.listByTenant(tenant.id)).filter(sendsFrom);
      const conversation = phone.normalized ? await store.chats.findLeadWithChat(tenant.id, phone.normalized) : undefined;
      const messages = conversation ? await store.messages.listByChat(conversation.chat.id, CARD_MESSAGES) : [];
      const pinnedId = conversation?.chat.line_id;
      // A conversation whose line went away (off, moved to another project) is moved by the pipeline to another line, as a reply.
      const pinned = pinnedId ? lines.filter((l) => l.id === pinnedId) : [];
      const send: SendCheck =
        phone.normalized === null
          ? { wouldBeFirstTouch: null, allowedNow: false, refusal: { error: 'no usable phone', code: 1013, reason: phone.reason } }
          : await firstTouchPreview(store, tenant, pinned.length > 0 ? pinned : lines, clock.now(), Boolean(pinnedId));
      return {
        portalId: q.portalId,
        contact: { id: contact.id, firstname: contact.properties.firstname ?? null, lastname: contact.properties.lastname ?? null, phone },
        chatId: conversation?.chat.id ?? null,
        messages,
        lines,
        send,
      };
    },

    /**
     * The card's send: one per tenant, contact and second (`second` is the signed request's).
     * `portalId` is the one HubSpot appended to the signed query; `cardPortalId` the one the card's
     * code put in the body, which a user can change: another portal's is refused.
     */
    async cardSend(b: { portalId: string; appId?: string; cardPortalId: string; objectId: string; text: string; phoneLineId?: string }, second: number): Promise<CrmSendResult> {
      if (b.cardPortalId !== b.portalId) {
        throw new DomainError(2005, `the card names portal ${b.cardPortalId}, but HubSpot signed this request for portal ${b.portalId}`);
      }
      const { tenant } = await connected(b.portalId, b.appId);
      const key = `${b.portalId}:${b.objectId}:${second}`;
      return once({ store, clock }, { tenantId: tenant.id, route: 'crm:hubspot:card_send', key, ttlMs: CARD_SEND_KEY_TTL_MS }, async () => {
        const contact = await readContact(tenant, b.portalId, b.objectId, 'sidebar_send');
        const phone = contactPhone(contact.properties);
        if (!phone.normalized) throw new DomainError(1013, `contact ${b.objectId} has no usable phone number: ${phone.reason}`);
        const sent = await sendForCrm(deps, tenant, { phone: phone.normalized, text: b.text, phoneLineId: b.phoneLineId, idempotencyKey: `hubspot:card:${key}` });
        await link(tenant, phone.normalized, b.portalId, b.objectId);
        return sent;
      }, recordedSendOutcome);
    },

    /**
     * The workflow action: 0 HubSpot calls; idempotent on callbackId, for good (a v1/v2 signature
     * has no timestamp: a captured request replayed any time later is a duplicate). Refused only
     * for time (window, lines' first-touch limits), it is held and completed later (held-actions.ts).
     */
    async workflowSend(p: WorkflowPayload): Promise<WorkflowResult> {
      const portalId = String(p.origin.portalId);
      const callbackId = p.callbackId;
      const { tenant } = await connected(portalId);
      const r = await once({ store, clock }, { tenantId: tenant.id, route: 'crm:hubspot:workflow', key: `${portalId}:${callbackId}`, ttlMs: FOREVER }, async (): Promise<WorkflowRecord> => {
        const props = p.object.properties ?? {};
        const input = p.inputFields ?? {};
        const rawPhone = typeof input.phone === 'string' && input.phone.trim() ? input.phone : undefined;
        const own = contactPhone(props).normalized ?? undefined;
        const phone = rawPhone ? normalizePhone(rawPhone) : own;
        // Replies from a phone are pushed to the contact it is linked to: only the contact's own
        // number links. A phone the action's input names (a rep told of every enrolled contact)
        // is no contact's: linked, its replies would land on whichever contact was enrolled last.
        const linksContact = phone !== undefined && phone === own;
        if (!phone) throw new DomainError(1013, rawPhone ? `phone "${rawPhone.slice(0, 40)}" is not a phone number in E.164` : 'no phone: set the action\'s phone input or send the contact\'s mobilephone/phone');
        const template = typeof input.message === 'string' ? input.message : '';
        const text = renderTemplate(template, props);
        if (!text) throw new DomainError(1001, 'the action\'s message input is empty');
        const objectId = String(p.object.objectId);
        try {
          const sent = await sendForCrm(deps, tenant, { phone, text, idempotencyKey: `hubspot:workflow:${portalId}:${callbackId}` });
          if (linksContact) await link(tenant, phone, portalId, objectId);
          return sent;
        } catch (err) {
          // The line's answer never came: no outcome yet (a FAIL_CONTINUE would end a send that may have gone
          // out). As 1012, HubSpot retries; the pipeline answers its retry once reconciliation settled the message.
          if (isUnsettled(err)) throw new DomainError(1012, `still in progress: ${err.message}`);
          if (!isHeldLimit(err)) throw err;
          return { held: (await held.hold(tenant, { portalId, callbackId, objectId, phone, text, linksContact }, err)).reason };
        }
      }, readWorkflowRecord);
      if (!('held' in r.result)) return { kind: 'sent', result: r.result, duplicate: r.duplicate };
      const row = await held.status(portalId, callbackId);
      if (!row) throw new Error(`held workflow action ${portalId}:${callbackId} has no row`);
      const outcome = held.outcomeOf(row);
      if (!outcome) {
        // A replay says what it waits for now (held again by another limit, the row has that one).
        const hold = { reason: (row.reason as Hold['reason'] | null) ?? r.result.held, nextAttemptAt: row.next_attempt_at, expiresAt: row.expires_at };
        return { kind: 'held', hold, expiresInMs: row.expires_at - clock.now(), duplicate: r.duplicate };
      }
      // Done meanwhile (HubSpot retries no 200; a replay): what HubSpot was told.
      if (outcome.state === 'SUCCESS') return { kind: 'sent', result: outcome.sent, duplicate: true };
      throw new ReplayedFailure(outcome.code as ErrorCode, outcome.message, {}, outcome.error);
    },
  };
}

export type HubSpotCrm = ReturnType<typeof hubspotCrm>;
