import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { deleteWebhookSubscription } from '../../../contract/webhook-subscriptions-delete.js';
import type { SubscriptionsService } from '../../../domain/events/subscriptions.js';

export function deleteWebhookSubscriptionRoute(app: TypedApp, deps: { subscriptions: SubscriptionsService }) {
  route(app, deleteWebhookSubscription, async (req) => {
    await deps.subscriptions.remove(principalOf(req).tenant.id, req.params.id);
    return { id: req.params.id, deleted: true as const };
  });
}
