import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { reactToMessage } from '../../../contract/messages-react.js';
import type { Messaging } from '../../../domain/messaging/index.js';
import { reactedView } from '../../present/messages.js';

export function reactToMessageRoute(app: TypedApp, deps: { messaging: Messaging }) {
  route(app, reactToMessage, async (req) =>
    reactedView(await deps.messaging.ops.react(principalOf(req).tenant, req.params.id, req.body.reaction, req.body.remove ?? false)),
  );
}
