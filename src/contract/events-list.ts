import { Type, type Static } from 'typebox';
import { Nullable } from './common.js';
import { operation } from './operation.js';
import { EventRecord, EventStatus, PageLimit, Since } from './event.js';

export const ListEventsQuery = Type.Object(
  {
    type: Type.Optional(Type.String({ maxLength: 100, description: 'exact event type' })),
    status: Type.Optional(EventStatus),
    lead_id: Type.Optional(Type.String({ maxLength: 100 })),
    since: Type.Optional(Since),
    limit: Type.Optional(PageLimit),
    cursor: Type.Optional(Type.String({ maxLength: 200, description: 'next_cursor of the previous page (else 1002)' })),
  },
  { additionalProperties: false },
);

export const ListEventsResponse = Type.Object({
  events: Type.Array(EventRecord, { description: 'newest first' }),
  next_cursor: Nullable(Type.String({ description: 'null on the last page' })),
  count: Type.Integer({ minimum: 0, description: 'events on this page' }),
});
export type ListEventsResponse = Static<typeof ListEventsResponse>;

export const listEvents = operation({
  operationId: 'listEvents',
  method: 'GET',
  path: '/api/v1/events',
  summary: 'List events, newest first',
  description: 'Pages do not repeat or skip events that arrive while listing: follow next_cursor.',
  tags: ['events'],
  auth: 'tenant-header',
  query: ListEventsQuery,
  responses: { 200: ListEventsResponse },
  errors: [],
});
