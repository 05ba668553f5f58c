import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { DomainError } from '../../../errors/registry.js';
import { addChatParticipant } from '../../../contract/chats-add-participant.js';
import type { Messaging } from '../../../domain/messaging/index.js';
import { participantAddedView } from '../../present/chats.js';

export function addChatParticipantRoute(app: TypedApp, deps: { messaging: Messaging }) {
  route(app, addChatParticipant, async (req) => {
    // `handle` is an alias of `address`: one of them (the same value twice is fine).
    const { address: given, handle } = req.body;
    if (given !== undefined && handle !== undefined && given !== handle) {
      throw new DomainError(1002, 'give address or its alias handle, not two different values');
    }
    const address = given ?? handle;
    if (!address?.trim()) throw new DomainError(1001, 'address is required (handle is accepted as an alias)');
    return participantAddedView(await deps.messaging.ops.addParticipant(principalOf(req).tenant, req.params.id, address));
  });
}
