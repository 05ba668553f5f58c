import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { parseSince } from '../../since.js';
import { eventRecordView, sendEventRecords } from '../../present/events.js';
import { listDevInbox, type ListDevInboxResponse } from '../../../contract/dev-inbox-list.js';
import { isoAt } from '../../../clock.js';
import type { EventsService } from '../../../domain/events/service.js';

export function listDevInboxRoute(app: TypedApp, deps: { eventLog: EventsService }) {
  route(app, listDevInbox, async (req, reply) => {
    const page = await deps.eventLog.devInbox(principalOf(req).tenant, { sinceMs: parseSince(req.query.since), limit: req.query.limit ?? 50 });
    const body: ListDevInboxResponse = {
      events: page.events.map(eventRecordView),
      count: page.events.length,
      // An empty page resumes where it was asked to.
      next_since: page.lastCreatedAt !== null ? isoAt(page.lastCreatedAt) : (req.query.since ?? null),
    };
    return sendEventRecords(reply, body);
  });
}
