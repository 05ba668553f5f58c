/** Chats and the results of chat operations, as the contract shows them. */
import { isoAt, isoOrNull } from '../../clock.js';
import type { Chat } from '../../contract/chat.js';
import type { CreateChatResponse } from '../../contract/chats-create.js';
import type { SendChatMessageResponse } from '../../contract/chats-send-message.js';
import type { ListChatMessagesResponse } from '../../contract/chats-list-messages.js';
import type { AddParticipantResponse } from '../../contract/chats-add-participant.js';
import type { ChatOpened, ChatPage, PartsSent } from '../../domain/messaging/chats.js';
import type { ParticipantAdded } from '../../domain/messaging/message-ops.js';
import type { GroupChanged, ParticipantRemoved } from '../../domain/messaging/group-changes.js';
import type { RemoveParticipantResponse } from '../../contract/chats-remove-participant.js';
import type { UpdateChatResponse } from '../../contract/chats-update.js';
import type { LeaveChatResponse } from '../../contract/chats-leave.js';
import { messageWithReactions, publicMessage } from './messages.js';
import type { ReactionView } from '../../domain/messaging/reactions.js';

export function chatView(c: Pick<ChatOpened, 'chat' | 'participants' | 'lead'>): Chat {
  const { chat } = c;
  return {
    id: chat.id,
    is_group: chat.is_group,
    handles: c.participants,
    phone_line_id: chat.line_id,
    convo_id: chat.convo_id,
    display_name: chat.display_name,
    created_at: isoAt(chat.created_at),
    ...(c.lead && { lead_id: c.lead.id }),
    ...(chat.left_at != null && { left_at: isoAt(chat.left_at) }),
  };
}

export const chatOpenedView = (o: ChatOpened): CreateChatResponse => ({ chat: chatView(o), message: publicMessage(o.message) });

/** The answer names the last message sent, and each part's. */
export function chatMessageSentView({ messages, partMessageIds }: PartsSent): SendChatMessageResponse {
  const last = messages[messages.length - 1]!;
  return { message: { id: last.id, chat_id: last.chat_id, status: last.status, delivered_at: isoOrNull(last.delivered_at), part_message_ids: partMessageIds } };
}

export const chatPageView = (p: ChatPage, reactions: ReadonlyMap<string, ReactionView[]>): ListChatMessagesResponse => ({
  messages: p.messages.map((m) => messageWithReactions(m, reactions.get(m.id))),
  next_cursor: p.nextCursor,
});

export const participantRemovedView = (p: ParticipantRemoved): RemoveParticipantResponse => ({ chat_id: p.chatId, removed: p.handle, participants: p.participants });

export const groupChangedView = (g: GroupChanged): UpdateChatResponse & LeaveChatResponse => ({ chat: chatView(g) });

export const participantAddedView = (p: ParticipantAdded): AddParticipantResponse => ({ chat_id: p.chatId, added: p.handle, participants: p.participants });
