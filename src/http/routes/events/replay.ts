import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { replayView } from '../../present/events.js';
import { replayEvent } from '../../../contract/events-replay.js';
import type { EventsService } from '../../../domain/events/service.js';

export function replayEventRoute(app: TypedApp, deps: { eventLog: EventsService }) {
  route(app, replayEvent, async (req, reply) => {
    const { status, body } = replayView(await deps.eventLog.replay(principalOf(req).tenant, req.params.id, req.query.subscription_id), req.id);
    return reply.status(status).send(body);
  }, { answersFailures: true });
}
