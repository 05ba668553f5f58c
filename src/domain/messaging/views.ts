/** The message resource as the API shows it. */
import type { Message } from '../../store/index.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

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
    sent_at: iso(m.sent_at)!,
    delivered_at: iso(m.delivered_at),
    read_at: iso(m.read_at),
    edited_at: iso(m.edited_at),
    ...(m.error_code !== null && { error_code: m.error_code }),
  };
}
