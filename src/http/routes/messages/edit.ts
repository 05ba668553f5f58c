import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { editMessage } from '../../../contract/messages-edit.js';
import type { Messaging } from '../../../domain/messaging/index.js';
import { editedView } from '../../present/messages.js';

export function editMessageRoute(app: TypedApp, deps: { messaging: Messaging }) {
  route(
    app,
    editMessage,
    async (req) => editedView(await deps.messaging.ops.edit(principalOf(req).tenant, req.params.id, req.body.new_text, req.body.edited_part_index ?? 0)),
  );
}
