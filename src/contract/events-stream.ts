import { Type } from 'typebox';
import { operation } from './operation.js';
import { Since } from './event.js';

export const streamEvents = operation({
  operationId: 'streamEvents',
  method: 'GET',
  path: '/api/v1/events/stream',
  summary: 'Server-Sent Events: lives 60 s, heartbeat every 15 s, then `event: close`; resume with ?since= or Last-Event-ID',
  description:
    'Each event is a frame `id: <evt id>`, `event: <type>`, `data: {id, type, payload, created_at}` (StreamedEvent; payload: the webhook envelope). ' +
    'The stream ends with `event: close` and `data: {reason, reconnect_with_since, last_event_id?}` (StreamClosed). ' +
    "`reconnect_with_since` repeats the last sent event's millisecond, so a reconnect may resend an event or two (dedup on event_id) but skips none; `Last-Event-ID` resumes exactly (and wins over since). " +
    'A stream whose credential stops working (its signing secret rotated away or past its overlap, its console session ended) or whose tenant is ' +
    'suspended or account unverified ends within about a second (its next poll), before sending anything more: `event: close` with reason `access_revoked` and a message.',
  tags: ['events'],
  auth: 'tenant-header',
  query: Type.Object({ since: Type.Optional(Since) }, { additionalProperties: false }),
  headers: Type.Object({ 'last-event-id': Type.Optional(Type.String({ description: 'the id of the last event received (evt_…)' })) }),
  responses: {},
  rawResponses: { 200: { contentType: 'text/event-stream', description: 'the event stream' } },
  errors: [],
});
