import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { subscriptionView } from '../../present/events.js';
import { getWebhookSubscription } from '../../../contract/webhook-subscriptions-get.js';
import type { SubscriptionsService } from '../../../domain/events/subscriptions.js';

export function getWebhookSubscriptionRoute(app: TypedApp, deps: { subscriptions: SubscriptionsService }) {
  route(app, getWebhookSubscription, async (req) => subscriptionView(await deps.subscriptions.get(principalOf(req).tenant.id, req.params.id)));
}
