import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { getMessage } from '../../../contract/messages-get.js';
import type { Messaging } from '../../../domain/messaging/index.js';
import { publicMessage } from '../../present/messages.js';

export function getMessageRoute(app: TypedApp, deps: { messaging: Messaging }) {
  route(app, getMessage, async (req) => ({ message: publicMessage(await deps.messaging.ops.get(principalOf(req).tenant, req.params.id)) }));
}
