/**
 * A message as the API shows it (the contract's Message): one mapping for every answer that
 * carries one and for the `message.failed` event's envelope, which the domain builds.
 */
import { isoAt, isoOrNull } from '../../clock.js';
import type { Message } from '../../store/index.js';

export function messageView(m: Message) {
  return {
    id: m.id,
    chat_id: m.chat_id,
    direction: m.direction,
    status: m.status,
    parts: m.parts,
    effect: m.effect,
    sender_handle: m.sender_handle,
    phone_line_id: m.line_id,
    sent_at: isoAt(m.sent_at),
    delivered_at: isoOrNull(m.delivered_at),
    read_at: isoOrNull(m.read_at),
    edited_at: isoOrNull(m.edited_at),
    ...(m.error_code !== null && { error_code: m.error_code }),
  };
}
