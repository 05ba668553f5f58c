import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { parseSince } from '../../since.js';
import { eventRecordView, sendEventRecords } from '../../present/events.js';
import { listEvents, type ListEventsResponse } from '../../../contract/events-list.js';
import { decodeListCursor, encodeListCursor } from '../../../domain/list-cursor.js';
import type { EventsService } from '../../../domain/events/service.js';

export function listEventsRoute(app: TypedApp, deps: { eventLog: EventsService }) {
  route(app, listEvents, async (req, reply) => {
    const q = req.query;
    const tenant = principalOf(req).tenant;
    // The cursor is the page's last event id: events recorded meanwhile are newer, before it.
    const beforeId = q.cursor ? decodeListCursor('events', tenant.id, q.cursor).id : undefined;
    const page = await deps.eventLog.list(tenant, {
      type: q.type,
      status: q.status,
      leadId: q.lead_id,
      sinceMs: parseSince(q.since),
      beforeId,
      limit: q.limit ?? 50,
    });
    const body: ListEventsResponse = {
      events: page.events.map(eventRecordView),
      next_cursor: page.nextBeforeId === null ? null : encodeListCursor('events', tenant.id, { id: page.nextBeforeId }),
      count: page.events.length,
    };
    return sendEventRecords(reply, body);
  });
}
