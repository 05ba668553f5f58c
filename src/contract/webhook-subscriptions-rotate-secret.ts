import { Type, type Static } from 'typebox';
import { DateTime } from './common.js';
import { operation } from './operation.js';
import { SubscriptionParams } from './webhook-subscription.js';

export const RotateSubscriptionSecretResponse = Type.Object({
  id: Type.String(),
  secret: Type.String({ description: 'the new whsec_…, shown only here' }),
  previous_secret_expires_at: DateTime('until then the replaced secret still signs'),
});
export type RotateSubscriptionSecretResponse = Static<typeof RotateSubscriptionSecretResponse>;

export const rotateWebhookSubscriptionSecret = operation({
  operationId: 'rotateWebhookSubscriptionSecret',
  method: 'POST',
  path: '/api/v1/webhook-subscriptions/{id}/rotate-secret',
  summary: 'New secret; during the overlap every delivery carries one v1= per valid secret',
  description: 'At most five secrets sign at once: a rotation that would make a sixth is 409 / 1012 until the oldest overlap ends. With overlap_hours 0 the new secret alone signs from then on (every earlier one ends).',
  tags: ['webhooks'],
  auth: 'tenant-bearer',
  params: SubscriptionParams,
  body: Type.Object(
    { overlap_hours: Type.Optional(Type.Number({ minimum: 0, maximum: 24 * 30, description: 'how long the replaced secret still signs (default 24)' })) },
    { additionalProperties: false },
  ),
  responses: { 200: RotateSubscriptionSecretResponse },
  errors: [2011, 1012],
});
