import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { updateChat } from '../../../contract/chats-update.js';
import type { Messaging } from '../../../domain/messaging/index.js';
import { groupChangedView } from '../../present/chats.js';

export function updateChatRoute(app: TypedApp, deps: { messaging: Messaging }) {
  route(app, updateChat, async (req) => groupChangedView(await deps.messaging.groups.rename(principalOf(req).tenant, req.params.id, req.body.display_name)));
}
