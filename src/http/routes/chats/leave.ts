import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { leaveChat } from '../../../contract/chats-leave.js';
import type { Messaging } from '../../../domain/messaging/index.js';
import { groupChangedView } from '../../present/chats.js';

export function leaveChatRoute(app: TypedApp, deps: { messaging: Messaging }) {
  route(app, leaveChat, async (req) => groupChangedView(await deps.messaging.groups.leave(principalOf(req).tenant, req.params.id)));
}
