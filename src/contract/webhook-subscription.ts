/** The webhook subscription resource. */
import { Type, type Static } from 'typebox';
import { DateTime } from './common.js';
import { EVENT_TYPES } from '../domain/events/vocabulary.js';

export const EventType = Type.Enum(EVENT_TYPES, { type: 'string', description: 'an event type: message.received (the spec\'s), or a status event (message.sent, message.delivered, message.read, message.failed of an outbound message; message.reacted, a tapback a line reported; message.edited, a contact\'s edit; recorded only for projects subscribed to them)' });

export const WebhookSubscription = Type.Object({
  id: Type.String({ description: 'sub_…' }),
  url: Type.String({ description: 'where deliveries go; https://dev-inbox for the dev inbox' }),
  events: Type.Array(EventType),
  enabled: Type.Boolean({ description: 'false: nothing is sent here, not even a delivery or retry already due (it ends failed; replay it once enabled). PATCH to change' }),
  created_at: DateTime(),
});
export type WebhookSubscription = Static<typeof WebhookSubscription>;

export const SubscriptionParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100, description: 'sub_…' }) });
