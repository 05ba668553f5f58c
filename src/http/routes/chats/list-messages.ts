import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { listChatMessages } from '../../../contract/chats-list-messages.js';
import type { Messaging } from '../../../domain/messaging/index.js';
import { chatPageView } from '../../present/chats.js';

export function listChatMessagesRoute(app: TypedApp, deps: { messaging: Messaging }) {
  route(app, listChatMessages, async (req) => {
    const page = await deps.messaging.chats.listMessages(principalOf(req).tenant, req.params.id, req.query.limit ?? 50, req.query.cursor);
    return chatPageView(page, await deps.messaging.reactions.of(page.messages.map((m) => m.id)));
  });
}
