import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { sendChatMessage } from '../../../contract/chats-send-message.js';
import type { Messaging } from '../../../domain/messaging/index.js';
import { chatMessageSentView } from '../../present/chats.js';

export function sendChatMessageRoute(app: TypedApp, deps: { messaging: Messaging }) {
  route(
    app,
    sendChatMessage,
    async (req) => {
      const { message, parallel_attachments } = req.body;
      const sent = await deps.messaging.chats.postMessage(principalOf(req).tenant, req.params.id, { parts: message.parts, parallelAttachments: parallel_attachments });
      return chatMessageSentView(sent);
    },
  );
}
