/**
 * The rows an inbound message is recorded as (message, `message.received` event, one delivery
 * job per destination), built from what the recording read: shared by the transaction
 * (line-events.ts) and PostgreSQL's one-statement path (inbound-direct.ts), so both write
 * the same thing.
 */
import type { InboundMessage } from '../../drivers/types.js';
import type { Chat, DeliveryJob, EventRow, PhoneLine, Tenant } from '../../store/index.js';
import { ids, newEventId } from '../ids.js';
import { newMessageId } from './outbound.js';
import { messageEventId, messageReceivedEnvelope, type InboundMessageRecord, type InboundPart } from '../events/envelope.js';
import { destinations, type SubscriptionTarget } from '../events/destinations.js';

export interface InboundRecord {
  message: InboundMessageRecord;
  event: EventRow;
  jobs: DeliveryJob[];
}

export function inboundRecord(args: {
  tenant: Tenant;
  line: PhoneLine;
  chat: Chat;
  leadId: string | null;
  participants: string[];
  msg: InboundMessage;
  parts: InboundPart[];
  /** the tenant's subscriptions (enabled or not) */
  subscriptions: SubscriptionTarget[];
  nowMs: number;
  deepLinkTemplate: string;
}): InboundRecord {
  const { tenant, line, chat, msg, nowMs: now } = args;
  const message: InboundMessageRecord = {
    id: newMessageId(msg.sentAt), tenant_id: tenant.id, chat_id: chat.id, line_id: line.id, direction: 'inbound',
    sender_handle: msg.from, parts: args.parts, effect: null, status: 'received', provider_guid: msg.guid, first_touch: false,
    error_code: null, sent_at: msg.sentAt, delivered_at: msg.sentAt, read_at: null, edited_at: null,
  };
  const envelope = messageReceivedEnvelope({
    tenant, line, chat, participants: args.participants, message, guid: msg.guid,
    traceId: ids.trace(), nowMs: now, deepLinkTemplate: args.deepLinkTemplate,
  });
  const eventRef = newEventId(now);
  const { status, devInbox, jobs } = destinations(args.subscriptions, 'message.received', eventRef, tenant.id, now);
  const event: EventRow = {
    id: eventRef, tenant_id: tenant.id, type: 'message.received', event_id: messageEventId(msg.guid), lead_id: args.leadId,
    convo_id: chat.convo_id, payload: JSON.stringify(envelope), status, dev_inbox: devInbox, delivered_at: null, created_at: now,
  };
  return { message, event, jobs };
}
