/**
 * What the console does to an existing webhook endpoint: change its url or events, disable or
 * enable it (its secret stays), and send it a test event now.
 */
import { DomainError } from '../../errors/registry.js';
import type { Clock } from '../../clock.js';
import type { Store, Subscription } from '../../store/index.js';
import type { AddressGuard } from '../../net/index.js';
import { randomHex } from '../ids.js';
import { checkedWebhookUrl } from './subscriptions.js';
import { DEV_INBOX_URL, EVENT_TYPES } from './vocabulary.js';
import { messageReceivedEnvelope } from './envelope.js';
import type { AttemptDelivery, AttemptResult } from './attempts.js';

export interface SubscriptionChange {
  url?: string;
  events?: readonly string[];
  enabled?: boolean;
}

export interface TestDelivery extends AttemptResult {
  eventId: string;
}

/** The sample's sender, and its receiving line when the tenant has none. */
const SAMPLE_SENDER = '+15555550100';
const SAMPLE_LINE = { id: 'test_line', phone_number: '+15555550199' };

export function subscriptionChanges(deps: {
  store: Store;
  clock: Clock;
  allowPrivateNetworks: boolean;
  attempt: AttemptDelivery;
  /** The connect-time address check's guard, also applied to a changed url's name (as to a new one's). */
  addressGuard?: AddressGuard;
  /** `data.crm_deep_link` of the sample, filled in as for real events (services.ts). */
  deepLinkTemplate: string;
}) {
  const { store, clock } = deps;

  async function owned(tenantId: string, id: string): Promise<Subscription> {
    const s = await store.events.subscription(tenantId, id);
    if (!s) throw new DomainError(2011, `webhook subscription ${id} not found`);
    return s;
  }

  return {
    async update(tenantId: string, id: string, change: SubscriptionChange): Promise<Subscription> {
      await owned(tenantId, id);
      if (change.events) {
        if (change.events.length === 0) throw new DomainError(1002, 'events needs at least one event type');
        const unknown = change.events.filter((e) => !(EVENT_TYPES as readonly string[]).includes(e));
        if (unknown.length) throw new DomainError(1002, `unknown event type ${unknown.join(', ')}; supported: ${EVENT_TYPES.join(', ')}`);
      }
      const set = {
        // Checked as a new subscription's url is, its name's addresses included.
        ...(change.url !== undefined && { url: await checkedWebhookUrl(change.url, { allowPrivateNetworks: deps.allowPrivateNetworks, guard: deps.addressGuard }) }),
        ...(change.events && { events: [...new Set(change.events)] }),
        ...(change.enabled !== undefined && { disabled_at: change.enabled ? null : clock.now() }),
      };
      // Nothing to change (`{}`) changes nothing: an UPDATE without columns is not SQL.
      if (Object.keys(set).length > 0) await store.events.updateSubscription(tenantId, id, set);
      return owned(tenantId, id);
    },

    /**
     * A signed sample message.received, sent once now; recorded nowhere. It is a valid envelope,
     * built by the one that builds real ones (crm_deep_link from the same template), received on
     * one of the tenant's lines; only its ids are samples (test:msg:…, test_chat, test_message)
     * and `test: true` marks it.
     */
    async test(tenant: { id: string; slug: string }, id: string): Promise<TestDelivery> {
      const sub = await owned(tenant.id, id);
      if (sub.url === DEV_INBOX_URL) throw new DomainError(1012, 'the dev inbox receives nothing by POST; pull /api/v1/dev-inbox instead');
      const now = clock.now();
      const guid = `test-${randomHex(8)}`;
      const eventId = `test:msg:${guid}`;
      const lines = await store.lines.listByTenant(tenant.id);
      const line = lines.find((l) => l.is_active) ?? lines[0] ?? SAMPLE_LINE;
      const payload = {
        ...messageReceivedEnvelope({
          tenant,
          line,
          chat: { id: 'test_chat', is_group: false },
          participants: [SAMPLE_SENDER],
          message: {
            id: 'test_message',
            sender_handle: SAMPLE_SENDER,
            parts: [{ type: 'text', value: 'This is a test event from the Blueline console.' }],
            sent_at: now,
            delivered_at: null,
            read_at: null,
          },
          guid,
          traceId: `tr_test_${randomHex(8)}`,
          nowMs: now,
          deepLinkTemplate: deps.deepLinkTemplate,
        }),
        event_id: eventId,
        test: true,
      };
      const result = await deps.attempt({ id: `test_${randomHex(8)}`, type: 'message.received', event_id: eventId, payload: JSON.stringify(payload) }, sub, now);
      return { ...result, eventId };
    },
  };
}

export type SubscriptionChanges = ReturnType<typeof subscriptionChanges>;
