/**
 * The envelopes of the outbound status events (`message.sent`, `message.delivered`,
 * `message.read`, `message.failed`): what happened to a message the project sent.
 * Their wire shape is src/contract/webhook-message-status.ts. The common fields are
 * message.received's; data.message is the message resource as GET /api/v1/messages/{id} shows it.
 */
import type { Chat, Message, PhoneLine, Tenant } from '../../store/index.js';
import { messageView } from '../messaging/message-view.js';
import { EVENT_NAMESPACE, deepLink, envelopeHead, handle } from './envelope.js';
import type { StatusEventType } from './vocabulary.js';

/** One per message and type: a message is sent, delivered, read or failed once. */
export const statusEventId = (type: StatusEventType, messageId: string) => `${EVENT_NAMESPACE}:${type.slice('message.'.length)}:${messageId}`;

export function statusEnvelope(args: {
  type: StatusEventType;
  tenant: Pick<Tenant, 'slug'>;
  line: Pick<PhoneLine, 'phone_number'>;
  chat: Pick<Chat, 'id' | 'is_group'>;
  participants: string[];
  message: Message;
  traceId: string;
  nowMs: number;
  deepLinkTemplate: string;
}) {
  const { type, tenant, line, chat, message } = args;
  return {
    ...envelopeHead(type, statusEventId(type, message.id), { traceId: args.traceId, nowMs: args.nowMs, tenantSlug: tenant.slug }),
    data: {
      chat: {
        id: chat.id,
        is_group: chat.is_group,
        // The recipients, then the sending line.
        handles: args.participants.filter((h) => h !== line.phone_number).map((h) => handle(h, false)).concat(handle(line.phone_number, true)),
        owner_handle: handle(line.phone_number, true),
      },
      message: messageView(message),
      crm_deep_link: deepLink(args.deepLinkTemplate, chat.id, tenant.slug),
    },
  };
}
