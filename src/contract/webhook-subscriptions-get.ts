import { operation } from './operation.js';
import { SubscriptionParams, WebhookSubscription } from './webhook-subscription.js';

export const getWebhookSubscription = operation({
  operationId: 'getWebhookSubscription',
  method: 'GET',
  path: '/api/v1/webhook-subscriptions/{id}',
  summary: 'One webhook subscription (without its secret)',
  tags: ['webhooks'],
  auth: 'tenant',
  params: SubscriptionParams,
  responses: { 200: WebhookSubscription },
  errors: [2011],
});
