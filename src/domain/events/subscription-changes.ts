/**
 * What the console does to an existing webhook endpoint: change its url or events, disable or
 * enable it (its secret stays), and send it a test event now.
 */
import { DomainError } from '../../errors/registry.js';
import type { Clock } from '../../clock.js';
import type { Store, Subscription } from '../../store/index.js';
import { validateWebhookUrl } from '../../net/index.js';
import { randomHex } from '../ids.js';
import { devInboxUrl } from './subscriptions.js';
import { DEV_INBOX_URL, EVENT_TYPES } from './vocabulary.js';
import { API_VERSION, WEBHOOK_VERSION } from './envelope.js';
import type { AttemptDelivery, AttemptResult } from './attempts.js';

export interface SubscriptionChange {
  url?: string;
  events?: readonly string[];
  enabled?: boolean;
}

export interface TestDelivery extends AttemptResult {
  eventId: string;
}

export function subscriptionChanges(deps: { store: Store; clock: Clock; allowPrivateNetworks: boolean; attempt: AttemptDelivery }) {
  const { store, clock } = deps;

  async function owned(tenantId: string, id: string): Promise<Subscription> {
    const s = await store.events.subscription(tenantId, id);
    if (!s) throw new DomainError(2011, `webhook subscription ${id} not found`);
    return s;
  }

  function checkedUrl(url: string): string {
    const devInbox = devInboxUrl(url);
    if (devInbox === 'ambiguous') throw new DomainError(1002, `url is not allowed: the dev inbox is selected with exactly ${DEV_INBOX_URL}`);
    if (devInbox) return DEV_INBOX_URL;
    const check = validateWebhookUrl(url, { allowPrivateNetworks: deps.allowPrivateNetworks });
    if (!check.ok) throw new DomainError(1002, `url is not allowed: ${check.reason}`);
    return url.trim();
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
        ...(change.url !== undefined && { url: checkedUrl(change.url) }),
        ...(change.events && { events: [...new Set(change.events)] }),
        ...(change.enabled !== undefined && { disabled_at: change.enabled ? null : clock.now() }),
      };
      // Nothing to change (`{}`) changes nothing: an UPDATE without columns is not SQL.
      if (Object.keys(set).length > 0) await store.events.updateSubscription(tenantId, id, set);
      return owned(tenantId, id);
    },

    /** A signed sample message.received, sent once now; recorded nowhere. */
    async test(tenant: { id: string; slug: string }, id: string): Promise<TestDelivery> {
      const sub = await owned(tenant.id, id);
      if (sub.url === DEV_INBOX_URL) throw new DomainError(1012, 'the dev inbox receives nothing by POST; pull /api/v1/dev-inbox instead');
      const now = clock.now();
      const eventId = `test:msg:${randomHex(8)}`;
      const payload = {
        event: 'message.received',
        event_type: 'message.received',
        event_id: eventId,
        timestamp: new Date(now).toISOString(),
        api_version: API_VERSION,
        webhook_version: WEBHOOK_VERSION,
        trace_id: `test_${randomHex(8)}`,
        partner_id: tenant.slug,
        test: true,
        data: {
          chat: { id: 'test_chat', is_group: false, handles: [{ handle: '+15555550100', service: 'imessage', is_me: false }], owner_handle: { handle: '+15555550199', service: 'imessage', is_me: true } },
          message: {
            id: 'test_message',
            direction: 'inbound',
            sender_handle: { handle: '+15555550100', service: 'imessage', is_me: false },
            parts: [{ type: 'text', value: 'This is a test event from the Blueline console.' }],
            sent_at: new Date(now).toISOString(),
            delivered_at: null,
            read_at: null,
            service: 'imessage',
          },
          crm_deep_link: null,
        },
      };
      const result = await deps.attempt({ id: `test_${randomHex(8)}`, type: 'message.received', event_id: eventId, payload: JSON.stringify(payload) }, sub, now);
      return { ...result, eventId };
    },
  };
}

export type SubscriptionChanges = ReturnType<typeof subscriptionChanges>;
