/** The message resource as the API shows it. */
import { isoOrNull } from '../../clock.js';
import type { Message } from '../../store/index.js';

export function publicMessage(m: Message) {
  return {
    id: m.id,
    chat_id: m.chat_id,
    direction: m.direction,
    status: m.status,
    parts: m.parts,
    effect: m.effect,
    sender_handle: m.sender_handle,
    phone_line_id: m.line_id,
    sent_at: isoOrNull(m.sent_at)!,
    delivered_at: isoOrNull(m.delivered_at),
    read_at: isoOrNull(m.read_at),
    edited_at: isoOrNull(m.edited_at),
    ...(m.error_code !== null && { error_code: m.error_code }),
  };
}
