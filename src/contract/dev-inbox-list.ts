import { Type, type Static } from 'typebox';
import { Nullable } from './common.js';
import { operation } from './operation.js';
import { EventRecord, PageLimit, Since } from './event.js';

export const ListDevInboxResponse = Type.Object({
  events: Type.Array(EventRecord, { description: 'oldest first' }),
  count: Type.Integer({ minimum: 0 }),
  next_since: Nullable(Type.String({ description: 'since= for the next page: the last event\'s created_at (the request\'s since when the page is empty)' })),
});
export type ListDevInboxResponse = Static<typeof ListDevInboxResponse>;

export const listDevInbox = operation({
  operationId: 'listDevInbox',
  method: 'GET',
  path: '/api/v1/dev-inbox',
  summary: 'Pull events recorded for a dev-inbox subscription, oldest first',
  description:
    'Resume with `since=next_since`. A page cut by `limit` also carries the other events of its last millisecond, so it may hold a few more than `limit`; none are skipped.',
  tags: ['events'],
  auth: 'tenant-header',
  query: Type.Object({ since: Type.Optional(Since), limit: Type.Optional(PageLimit) }, { additionalProperties: false }),
  responses: { 200: ListDevInboxResponse },
  errors: [],
});
