/** The conversation list's entries, as the contract shows them. */
import { isoAt } from '../../clock.js';
import type { ChatSummary } from '../../contract/chats-list.js';
import type { ChatListEntry } from '../../domain/messaging/chat-list.js';
import { publicMessage } from './messages.js';

export function chatSummaryView(e: ChatListEntry): ChatSummary {
  const { chat } = e;
  return {
    chat: {
      id: chat.id,
      is_group: chat.is_group,
      handles: e.handles,
      phone_line_id: chat.line_id,
      convo_id: chat.convo_id,
      display_name: chat.display_name,
      created_at: isoAt(chat.created_at),
      ...(!chat.is_group && chat.lead_id && { lead_id: chat.lead_id }),
      // As the chat view has it (present/chats.ts): a group the line left says when.
      ...(chat.left_at != null && { left_at: isoAt(chat.left_at) }),
    },
    last_message: e.lastMessage && publicMessage(e.lastMessage),
    last_activity_at: isoAt(e.activityAt),
  };
}
