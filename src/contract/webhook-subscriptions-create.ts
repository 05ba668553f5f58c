import { Type, type Static } from 'typebox';
import { operation } from './operation.js';
import { EventType, WebhookSubscription } from './webhook-subscription.js';

export const CreateSubscriptionRequest = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'an http(s) URL on a public address (spaces around it are dropped), or exactly https://dev-inbox; anything else is 1002',
    }),
    events: Type.Array(EventType, { minItems: 1, maxItems: 20 }),
  },
  { additionalProperties: false },
);
export type CreateSubscriptionRequest = Static<typeof CreateSubscriptionRequest>;

export const CreateSubscriptionResponse = Type.Object({
  ...WebhookSubscription.properties,
  secret: Type.String({ description: 'whsec_…: signs the deliveries; shown only in this answer' }),
});
export type CreateSubscriptionResponse = Static<typeof CreateSubscriptionResponse>;

export const createWebhookSubscription = operation({
  operationId: 'createWebhookSubscription',
  method: 'POST',
  path: '/api/v1/webhook-subscriptions',
  summary: 'Subscribe a URL (or https://dev-inbox); the secret is shown only here',
  tags: ['webhooks'],
  // The spec's route takes both methods. A signature replayed here must come with the body it
  // signed: a subscription to the signer's own URL, never the attacker's (docs/decisions.md).
  auth: 'tenant',
  body: CreateSubscriptionRequest,
  responses: { 201: CreateSubscriptionResponse },
  errors: [],
});
