import { Type, type Static } from 'typebox';
import { operation } from './operation.js';
import { EventType, SubscriptionParams, WebhookSubscription } from './webhook-subscription.js';

export const UpdateSubscriptionRequest = Type.Object(
  {
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'checked like a new subscription\'s' })),
    events: Type.Optional(Type.Array(EventType, { minItems: 1 })),
    enabled: Type.Optional(Type.Boolean({ description: 'false: nothing is sent here until it is true again, not even a delivery or retry already due (it ends failed; replay it then)' })),
  },
  { additionalProperties: false },
);
export type UpdateSubscriptionRequest = Static<typeof UpdateSubscriptionRequest>;

export const updateWebhookSubscription = operation({
  operationId: 'updateWebhookSubscription',
  method: 'PATCH',
  path: '/api/v1/webhook-subscriptions/{id}',
  summary: 'Change a webhook endpoint\'s url, events, or enable/disable it (its secret stays)',
  tags: ['webhooks'],
  auth: 'tenant',
  params: SubscriptionParams,
  body: UpdateSubscriptionRequest,
  responses: { 200: WebhookSubscription },
  errors: [2011],
});
