import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { eventRecordView, sendEventRecords } from '../../present/events.js';
import { getEvent } from '../../../contract/events-get.js';
import type { EventsService } from '../../../domain/events/service.js';

export function getEventRoute(app: TypedApp, deps: { eventLog: EventsService }) {
  route(app, getEvent, async (req, reply) => sendEventRecords(reply, eventRecordView(await deps.eventLog.get(principalOf(req).tenant, req.params.id))));
}
