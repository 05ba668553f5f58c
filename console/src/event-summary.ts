/**
 * What an event says in a line, for lists: its message's text (media as [media]) and who it is
 * from, or for an outbound status event (sent, delivered, read, failed) whom the message was to;
 * for a tapback, who put it on (or took it off) and Messages' words for it ("Loved “…”"); for a
 * contact's edit, who edited it and its new text.
 */
import type { CreateSubscriptionRequest } from '@blueline/sdk';
import { TAPBACK_VERB, tapbackOf } from './tapbacks.js';

export type EventType = CreateSubscriptionRequest['events'][number];
/** The event types, as a subscription names them and the Events filter offers them. */
export const EVENT_TYPES: readonly EventType[] = ['message.received', 'message.sent', 'message.delivered', 'message.read', 'message.failed', 'message.reacted', 'message.edited'];

type Payload = {
  event_type?: string;
  from?: string;
  data?: {
    chat?: { handles?: { handle: string; is_me: boolean }[] };
    message?: { sender_handle?: { handle?: string } | string | null; parts?: { type: string; value?: string }[] };
    reaction?: { reaction: string; removed: boolean; from: { handle: string; is_me: boolean } };
  };
};

export function textOf(e: { payload: unknown }): string {
  const { data } = e.payload as Payload;
  const text = (data?.message?.parts ?? []).map((p) => (p.type === 'text' ? p.value : `[${p.type}]`)).join(' ');
  const tapback = tapbackOf(data?.reaction?.reaction);
  if (!tapback) return text;
  return data!.reaction!.removed ? `Took back “${TAPBACK_VERB[tapback].toLowerCase()}” from “${text}”` : `${TAPBACK_VERB[tapback]} “${text}”`;
}

export function senderOf(e: { payload: unknown }): string {
  const p = e.payload as Payload;
  const reaction = p.data?.reaction;
  if (reaction) return reaction.from.is_me ? 'the line' : reaction.from.handle;
  // Every status event but a contact's edit is about a message the project sent.
  if (p.event_type !== undefined && p.event_type !== 'message.received' && p.event_type !== 'message.edited') {
    const to = (p.data?.chat?.handles ?? []).filter((h) => !h.is_me).map((h) => h.handle);
    return to.length ? `to ${to.join(', ')}` : '';
  }
  const sender = p.data?.message?.sender_handle;
  // message.received's envelope names the sender as a handle object; the message resource (a status event's) as a string.
  return (typeof sender === 'object' ? sender?.handle : sender) ?? p.from ?? '';
}
