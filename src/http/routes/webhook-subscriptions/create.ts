import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { subscriptionView } from '../../present/events.js';
import { createWebhookSubscription } from '../../../contract/webhook-subscriptions-create.js';
import type { SubscriptionsService } from '../../../domain/events/subscriptions.js';

export function createWebhookSubscriptionRoute(app: TypedApp, deps: { subscriptions: SubscriptionsService }) {
  route(app, createWebhookSubscription, async (req, reply) => {
    const { subscription, secret } = await deps.subscriptions.create(principalOf(req).tenant.id, req.body);
    return reply.status(201).send({ ...subscriptionView(subscription), secret });
  });
}
