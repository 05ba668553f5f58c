import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { idempotencyKeyOf } from '../../idempotency-key.js';
import { createChat } from '../../../contract/chats-create.js';
import type { Messaging } from '../../../domain/messaging/index.js';
import { chatOpenedView } from '../../present/chats.js';

export function createChatRoute(app: TypedApp, deps: { messaging: Messaging }) {
  route(app, createChat, async (req, reply) => {
    const b = req.body;
    const opened = await deps.messaging.chats.create(principalOf(req).tenant, {
      to: Array.isArray(b.to) ? b.to : [b.to],
      parts: b.message.parts,
      parallelAttachments: b.message.parallel_attachments,
      effect: b.message.effect,
      phoneLineId: b.phone_line_id,
      displayName: b.display_name,
      idempotencyKey: idempotencyKeyOf(req, b.idempotency_key),
      service: b.service,
    });
    // 201 when this request created the chat; an existing direct chat answers 200.
    return reply.status(opened.created ? 201 : 200).send(chatOpenedView(opened));
  });
}
