import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { listChats } from '../../../contract/chats-list.js';
import type { ChatList } from '../../../domain/messaging/chat-list.js';
import { chatSummaryView } from '../../present/chat-list.js';

export function listChatsRoute(app: TypedApp, deps: { chatList: ChatList }) {
  route(app, listChats, async (req) => {
    const page = await deps.chatList.page(principalOf(req).tenant.id, { limit: req.query.limit ?? 50, cursor: req.query.cursor, search: req.query.q });
    return { chats: page.entries.map(chatSummaryView), next_cursor: page.nextCursor };
  });
}
