import { Type, type Static } from 'typebox';
import { DateTime, Nullable } from './common.js';
import { operation } from './operation.js';
import { SubscriptionParams } from './webhook-subscription.js';

export const SubscriptionTestResult = Type.Object({
  ok: Type.Boolean({ description: 'the endpoint answered 2xx' }),
  event_id: Type.String({ description: 'test:… — never a real message\'s id' }),
  at: DateTime(),
  status: Type.Integer({ description: 'the endpoint\'s HTTP status; 0 when no answer came' }),
  duration_ms: Type.Number(),
  error: Nullable(Type.String({ description: 'why no answer came, or the start of a failure answer' })),
});
export type SubscriptionTestResult = Static<typeof SubscriptionTestResult>;

export const testWebhookSubscription = operation({
  operationId: 'testWebhookSubscription',
  method: 'POST',
  path: '/api/v1/webhook-subscriptions/{id}/test',
  summary: 'Send a signed sample message.received (event_id test:…) to the endpoint now',
  description: 'Not recorded in the event log and never retried: the answer says what the endpoint did.',
  tags: ['webhooks'],
  auth: 'tenant',
  params: SubscriptionParams,
  responses: { 200: SubscriptionTestResult },
  errors: [2011, { code: 1012, status: 409 }],
});
