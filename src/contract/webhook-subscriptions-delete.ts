import { Type, type Static } from 'typebox';
import { operation } from './operation.js';
import { SubscriptionParams } from './webhook-subscription.js';

export const DeleteSubscriptionResponse = Type.Object({ id: Type.String(), deleted: Type.Literal(true) });
export type DeleteSubscriptionResponse = Static<typeof DeleteSubscriptionResponse>;

export const deleteWebhookSubscription = operation({
  operationId: 'deleteWebhookSubscription',
  method: 'DELETE',
  path: '/api/v1/webhook-subscriptions/{id}',
  summary: 'Stop delivering to a subscription',
  tags: ['webhooks'],
  auth: 'tenant',
  params: SubscriptionParams,
  responses: { 200: DeleteSubscriptionResponse },
  errors: [2011],
});
