import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { parseSince } from '../../since.js';
import { eventRecordView, sendEventRecords } from '../../present/events.js';
import { listEvents, type ListEventsResponse } from '../../../contract/events-list.js';
import { DomainError } from '../../../errors/registry.js';
import type { EventsService } from '../../../domain/events/service.js';

/** The opaque cursor: the last event id of the page, base64url. */
const encodeCursor = (eventId: string) => Buffer.from(eventId).toString('base64url');
function decodeCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^evt_[0-9A-Z]{26}$/.test(id)) throw new DomainError(1002, 'cursor is not a value returned as next_cursor');
  return id;
}

export function listEventsRoute(app: TypedApp, deps: { eventLog: EventsService }) {
  route(app, listEvents, async (req, reply) => {
    const q = req.query;
    const beforeId = q.cursor ? decodeCursor(q.cursor) : undefined;
    const page = await deps.eventLog.list(principalOf(req).tenant, {
      type: q.type,
      status: q.status,
      leadId: q.lead_id,
      sinceMs: parseSince(q.since),
      beforeId,
      limit: q.limit ?? 50,
    });
    const body: ListEventsResponse = {
      events: page.events.map(eventRecordView),
      next_cursor: page.nextBeforeId === null ? null : encodeCursor(page.nextBeforeId),
      count: page.events.length,
    };
    return sendEventRecords(reply, body);
  });
}
