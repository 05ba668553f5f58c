import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { subscriptionView } from '../../present/events.js';
import { updateWebhookSubscription } from '../../../contract/webhook-subscriptions-update.js';
import type { SubscriptionChanges } from '../../../domain/events/subscription-changes.js';

export function updateWebhookSubscriptionRoute(app: TypedApp, deps: { subscriptionChanges: SubscriptionChanges }) {
  route(app, updateWebhookSubscription, async (req) => subscriptionView(await deps.subscriptionChanges.update(principalOf(req).tenant.id, req.params.id, req.body)));
}
