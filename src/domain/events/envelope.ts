/**
 * The `message.received` envelope: every field of the spec's table plus the legacy aliases.
 * Its wire shape is src/contract/webhook-message-received.ts (test/contract/webhook-message-received.test.ts
 * checks real deliveries against it).
 */
import { isoAt, isoOrNull } from '../../clock.js';
import type { Chat, Message, MessagePart, PhoneLine, Tenant } from '../../store/index.js';

/** What an inbound message is made of: text, and media stored with its type and size. */
export type InboundPart = Extract<MessagePart, { type: 'text' }> | (Extract<MessagePart, { type: 'media' }> & { mime_type: string; size_bytes: number });
export type InboundMessageRecord = Message & { parts: InboundPart[] };

export const API_VERSION = 'v1' as const;
export const WEBHOOK_VERSION = '2025-06-01';
export const EVENT_NAMESPACE = 'imessage';

export const messageEventId = (guid: string) => `${EVENT_NAMESPACE}:msg:${guid}`;

/** BLUELINE_DEEP_LINK_TEMPLATE (or the chat's messages) filled in for one chat. */
export const deepLink = (template: string, chatId: string, tenantSlug: string) =>
  template.replaceAll('{chat_id}', encodeURIComponent(chatId)).replaceAll('{tenant}', encodeURIComponent(tenantSlug));

/** The fields every envelope begins with (the contract's envelopeHead). */
export const envelopeHead = <const T extends string>(type: T, eventId: string, a: { traceId: string; nowMs: number; tenantSlug: string }) => ({
  event: type,
  event_type: type,
  event_id: eventId,
  timestamp: new Date(a.nowMs).toISOString(),
  api_version: API_VERSION,
  webhook_version: WEBHOOK_VERSION,
  trace_id: a.traceId,
  partner_id: a.tenantSlug,
});

export const handle = (value: string, isMe: boolean) => ({ handle: value, service: 'imessage' as const, is_me: isMe });

/** What the envelope reads of each record (the test delivery builds its sample from these alone). */
export function messageReceivedEnvelope(args: {
  tenant: Pick<Tenant, 'slug'>;
  line: Pick<PhoneLine, 'id' | 'phone_number'>;
  chat: Pick<Chat, 'id' | 'is_group'>;
  participants: string[];
  message: Pick<InboundMessageRecord, 'id' | 'sender_handle' | 'parts' | 'sent_at' | 'delivered_at' | 'read_at'>;
  guid: string;
  traceId: string;
  nowMs: number;
  deepLinkTemplate: string;
}) {
  const { tenant, line, chat, message, guid } = args;
  // An inbound message always has its sender; `from` repeats data.message.sender_handle.handle.
  const sender = message.sender_handle ?? '';
  const text = message.parts.filter((p) => p.type === 'text').map((p) => (p as { value: string }).value).join('\n');
  return {
    ...envelopeHead('message.received', messageEventId(guid), { traceId: args.traceId, nowMs: args.nowMs, tenantSlug: tenant.slug }),
    data: {
      chat: {
        id: chat.id,
        is_group: chat.is_group,
        // The other members (the sender among them), then the receiving line.
        handles: [...new Set([...args.participants, ...(message.sender_handle ? [message.sender_handle] : [])])]
          .filter((h) => h !== line.phone_number)
          .map((h) => handle(h, false))
          .concat(handle(line.phone_number, true)),
        owner_handle: handle(line.phone_number, true),
      },
      message: {
        id: message.id,
        direction: 'inbound' as const,
        sender_handle: handle(sender, false),
        parts: message.parts,
        sent_at: isoAt(message.sent_at),
        delivered_at: isoOrNull(message.delivered_at),
        read_at: isoOrNull(message.read_at),
        service: 'imessage' as const,
      },
      crm_deep_link: deepLink(args.deepLinkTemplate, chat.id, tenant.slug),
    },
    // Legacy aliases some integrations still read; prefer data.*.
    from: sender,
    to: line.phone_number,
    text,
    message_guid: guid,
    line_id: line.id,
  };
}

/** The envelope as recorded (events.payload) and delivered. */
export type MessageReceivedEnvelope = ReturnType<typeof messageReceivedEnvelope>;
