import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { isoAt } from '../../../clock.js';
import { testWebhookSubscription } from '../../../contract/webhook-subscriptions-test.js';
import type { SubscriptionChanges } from '../../../domain/events/subscription-changes.js';

export function testWebhookSubscriptionRoute(app: TypedApp, deps: { subscriptionChanges: SubscriptionChanges }) {
  route(app, testWebhookSubscription, async (req) => {
    const r = await deps.subscriptionChanges.test(principalOf(req).tenant, req.params.id);
    const ok = r.status !== null && r.status >= 200 && r.status < 300;
    return { ok, event_id: r.eventId, at: isoAt(r.at), status: r.status ?? 0, duration_ms: r.durationMs, error: r.error };
  });
}
