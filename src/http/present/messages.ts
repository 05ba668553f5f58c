/** Messages and the results of message operations, as the contract shows them. */
import { isoAt } from '../../clock.js';
import type { Message as MessageRecord } from '../../store/index.js';
import type { Message, MessageWithReactions } from '../../contract/message.js';
import type { SendResponse } from '../../contract/messages-send.js';
import type { EditMessageResponse } from '../../contract/messages-edit.js';
import type { ReactResponse } from '../../contract/messages-react.js';
import type { Sent } from '../../domain/messaging/send.js';
import type { Edited, Reacted } from '../../domain/messaging/message-ops.js';
import type { ReactionView } from '../../domain/messaging/reactions.js';
import { messageView } from '../../domain/messaging/message-view.js';

/** The contract's Message (the mapping is the domain's: the message.failed event carries it too). */
export const publicMessage = (m: MessageRecord): Message => messageView(m);

export const messageWithReactions = (m: MessageRecord, reactions: readonly ReactionView[] = []): MessageWithReactions => ({
  ...publicMessage(m),
  reactions: reactions.map((r) => ({ reaction: r.reaction, from: r.from, at: isoAt(r.at) })),
});

export const sentView = (s: Sent): SendResponse => ({
  status: 'sent',
  message_id: s.message.id,
  // An outcome recorded under an idempotency key before message_ids existed has only the message.
  message_ids: s.messageIds ?? [s.message.id],
  lead_id: s.lead.id,
  chat_id: s.chat.id,
  lead_created: s.leadCreated,
  convo_id: s.chat.convo_id,
  phone_line_id: s.lineId,
});

export const editedView = (e: Edited): EditMessageResponse => ({
  status: 'edited',
  message_id: e.messageId,
  new_text: e.newText,
  date_edited: isoAt(e.editedAt),
  edit_history: null,
});

export const reactedView = (r: Reacted): ReactResponse => ({
  status: r.kind,
  message_id: r.messageId,
  reaction: r.reaction,
  reacted_at: isoAt(r.at),
});
