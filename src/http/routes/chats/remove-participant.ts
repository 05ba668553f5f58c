import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { removeChatParticipant } from '../../../contract/chats-remove-participant.js';
import type { Messaging } from '../../../domain/messaging/index.js';
import { participantRemovedView } from '../../present/chats.js';

export function removeChatParticipantRoute(app: TypedApp, deps: { messaging: Messaging }) {
  route(app, removeChatParticipant, async (req) =>
    participantRemovedView(await deps.messaging.groups.removeParticipant(principalOf(req).tenant, req.params.id, req.params.address)),
  );
}
