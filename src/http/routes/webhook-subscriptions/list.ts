import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { subscriptionView } from '../../present/events.js';
import { listWebhookSubscriptions } from '../../../contract/webhook-subscriptions-list.js';
import type { SubscriptionsService } from '../../../domain/events/subscriptions.js';

export function listWebhookSubscriptionsRoute(app: TypedApp, deps: { subscriptions: SubscriptionsService }) {
  route(app, listWebhookSubscriptions, async (req) => ({ subscriptions: (await deps.subscriptions.list(principalOf(req).tenant.id)).map(subscriptionView) }));
}
