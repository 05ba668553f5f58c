/**
 * The `message.failed` envelope: an outbound message its line failed after the send was answered
 * (Messages gave up on it, or reconciliation found it never left). Its wire shape is
 * src/contract/webhook-message-failed.ts. The common fields are message.received's; data.message
 * is the message resource as GET /api/v1/messages/{id} shows it, now `failed` with its error_code.
 */
import type { Chat, Message, PhoneLine, Tenant } from '../../store/index.js';
import { messageView } from '../messaging/message-view.js';
import { API_VERSION, EVENT_NAMESPACE, WEBHOOK_VERSION, deepLink, handle } from './envelope.js';

/** One per message: a message fails once. */
export const messageFailedEventId = (messageId: string) => `${EVENT_NAMESPACE}:failed:${messageId}`;

export function messageFailedEnvelope(args: {
  tenant: Pick<Tenant, 'slug'>;
  line: Pick<PhoneLine, 'phone_number'>;
  chat: Pick<Chat, 'id' | 'is_group'>;
  participants: string[];
  message: Message;
  traceId: string;
  nowMs: number;
  deepLinkTemplate: string;
}) {
  const { tenant, line, chat, message } = args;
  return {
    event: 'message.failed' as const,
    event_type: 'message.failed' as const,
    event_id: messageFailedEventId(message.id),
    timestamp: new Date(args.nowMs).toISOString(),
    api_version: API_VERSION,
    webhook_version: WEBHOOK_VERSION,
    trace_id: args.traceId,
    partner_id: tenant.slug,
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

export type MessageFailedEnvelope = ReturnType<typeof messageFailedEnvelope>;
