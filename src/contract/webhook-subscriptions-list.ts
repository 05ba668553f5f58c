import { Type, type Static } from 'typebox';
import { operation } from './operation.js';
import { WebhookSubscription } from './webhook-subscription.js';

export const ListSubscriptionsResponse = Type.Object({ subscriptions: Type.Array(WebhookSubscription) });
export type ListSubscriptionsResponse = Static<typeof ListSubscriptionsResponse>;

export const listWebhookSubscriptions = operation({
  operationId: 'listWebhookSubscriptions',
  method: 'GET',
  path: '/api/v1/webhook-subscriptions',
  summary: "The project's webhook subscriptions (without their secrets)",
  tags: ['webhooks'],
  auth: 'tenant',
  responses: { 200: ListSubscriptionsResponse },
  errors: [],
});
