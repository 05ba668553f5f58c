import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { getMessage } from '../../../contract/messages-get.js';
import type { Messaging } from '../../../domain/messaging/index.js';
import { messageWithReactions } from '../../present/messages.js';

export function getMessageRoute(app: TypedApp, deps: { messaging: Messaging }) {
  route(app, getMessage, async (req) => {
    const m = await deps.messaging.ops.get(principalOf(req).tenant, req.params.id);
    return { message: messageWithReactions(m, (await deps.messaging.reactions.of([m.id])).get(m.id)) };
  });
}
