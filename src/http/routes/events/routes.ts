import { Type } from 'typebox';
import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { parseSince, type EventsService } from '../../../domain/events/service.js';
import type { SubscriptionsService } from '../../../domain/events/subscriptions.js';
import type { SseHub } from '../../../delivery/sse.js';
import type { Clock } from '../../../clock.js';

const tenantHeader = { auth: 'tenant-header' as const };
const Id = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const Status = Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed'), Type.Literal('dev_inbox')]);

export const EventRecord = Type.Object({
  id: Type.String(),
  type: Type.String(),
  event_id: Type.String(),
  lead_id: Type.Union([Type.String(), Type.Null()]),
  convo_id: Type.Union([Type.String(), Type.Null()]),
  payload: Type.Record(Type.String(), Type.Unknown()),
  delivery: Type.Object({
    status: Status,
    url: Type.Union([Type.String(), Type.Null()]),
    attempts: Type.Array(
      Type.Object({
        at: Type.String({ format: 'date-time' }),
        status: Type.Integer({ description: 'HTTP status; 0 when no answer arrived (see error)' }),
        duration_ms: Type.Integer(),
        subscription_id: Type.String(),
        error: Type.Optional(Type.String()),
      }),
    ),
    delivered_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  }),
  created_at: Type.String({ format: 'date-time' }),
});

const Subscription = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
});

export function eventRoutes(app: TypedApp, deps: { events: EventsService; subscriptions: SubscriptionsService; sse: SseHub; clock: Clock }) {
  const { events, subscriptions } = deps;
  const tags = ['events'];

  app.get(
    '/api/v1/events',
    {
      config: tenantHeader,
      schema: {
        tags,
        summary: 'List events, newest first',
        querystring: Type.Object(
          {
            type: Type.Optional(Type.String({ maxLength: 100 })),
            status: Type.Optional(Status),
            lead_id: Type.Optional(Type.String({ maxLength: 100 })),
            since: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601; created_at greater than since' })),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
            cursor: Type.Optional(Type.String({ maxLength: 200 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ events: Type.Array(EventRecord), next_cursor: Type.Union([Type.String(), Type.Null()]), count: Type.Integer() }) },
      },
    },
    async (req) => events.list(principalOf(req).tenant, req.query),
  );

  app.get(
    '/api/v1/events/stream',
    {
      config: tenantHeader,
      schema: {
        tags,
        summary: 'Server-Sent Events: lives 60 s, heartbeat every 15 s, then `event: close`; resume with ?since= or Last-Event-ID',
        description:
          '`reconnect_with_since` repeats the last sent event\'s millisecond, so a reconnect may resend an event or two (dedup on event_id) but skips none; `Last-Event-ID` resumes exactly.',
        querystring: Type.Object({ since: Type.Optional(Type.String({ maxLength: 40 })) }, { additionalProperties: false }),
      },
    },
    async (req, reply) => {
      const { tenant } = principalOf(req);
      const lastEventId = req.headers['last-event-id'];
      const sinceMs = parseSince(req.query.since);
      reply.hijack();
      reply.raw.setHeader('X-Trace-ID', req.id);
      await deps.sse.serve(tenant, reply.raw, { lastEventId: typeof lastEventId === 'string' && /^evt_[0-9A-Z]{26}$/.test(lastEventId) ? lastEventId : undefined, sinceMs }, () => deps.clock.now());
    },
  );

  app.get(
    '/api/v1/events/:id',
    { config: tenantHeader, schema: { tags, summary: 'One event with its full attempt history', params: Id, response: { 200: EventRecord } } },
    async (req) => events.get(principalOf(req).tenant, req.params.id),
  );

  app.post(
    '/api/v1/events/:id/replay',
    {
      config: tenantHeader,
      schema: {
        tags,
        summary: 'Re-deliver now to every destination, or only ?subscription_id=',
        params: Id,
        querystring: Type.Object({ subscription_id: Type.Optional(Type.String({ maxLength: 100 })) }, { additionalProperties: false }),
      },
    },
    async (req, reply) => {
      const result = await events.replay(principalOf(req).tenant, req.params.id, req.query.subscription_id);
      if (result.ok) return result;
      return reply.status(502).send({
        ok: false,
        error: 'replay_failed',
        downstream_status: result.downstream_status,
        code: 4001,
        message: result.message,
        retryable: result.retryable,
        trace_id: req.id,
      });
    },
  );

  app.get(
    '/api/v1/dev-inbox',
    {
      config: tenantHeader,
      schema: {
        tags,
        summary: 'Pull events recorded for a dev-inbox subscription, oldest first',
        description:
          'Resume with `since=next_since`. A page cut by `limit` also carries the other events of its last millisecond, so it may hold a few more than `limit`; none are skipped.',
        querystring: Type.Object(
          { since: Type.Optional(Type.String({ maxLength: 40 })), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ events: Type.Array(EventRecord), count: Type.Integer(), next_since: Type.Union([Type.String(), Type.Null()]) }) },
      },
    },
    async (req) => events.devInbox(principalOf(req).tenant, req.query),
  );

  const subTags = ['webhook subscriptions'];
  app.post(
    '/api/v1/webhook-subscriptions',
    {
      schema: {
        tags: subTags,
        summary: 'Subscribe a URL (or https://dev-inbox); the secret is shown only here',
        body: Type.Object(
          { url: Type.String({ minLength: 1, maxLength: 2048 }), events: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 20 }) },
          { additionalProperties: false },
        ),
        response: { 201: Type.Object({ ...Subscription.properties, secret: Type.String() }) },
      },
    },
    async (req, reply) => reply.status(201).send(await subscriptions.create(principalOf(req).tenant.id, req.body)),
  );
  app.get(
    '/api/v1/webhook-subscriptions',
    { schema: { tags: subTags, response: { 200: Type.Object({ subscriptions: Type.Array(Subscription) }) } } },
    async (req) => ({ subscriptions: await subscriptions.list(principalOf(req).tenant.id) }),
  );
  app.get(
    '/api/v1/webhook-subscriptions/:id',
    { schema: { tags: subTags, params: Id, response: { 200: Subscription } } },
    async (req) => subscriptions.get(principalOf(req).tenant.id, req.params.id),
  );
  app.delete(
    '/api/v1/webhook-subscriptions/:id',
    { schema: { tags: subTags, params: Id, response: { 200: Type.Object({ id: Type.String(), deleted: Type.Boolean() }) } } },
    async (req) => subscriptions.remove(principalOf(req).tenant.id, req.params.id),
  );
  app.post(
    '/api/v1/webhook-subscriptions/:id/rotate-secret',
    {
      schema: {
        tags: subTags,
        summary: 'New secret; during the overlap every delivery carries one v1= per valid secret',
        params: Id,
        body: Type.Object({ overlap_hours: Type.Optional(Type.Number({ minimum: 0, maximum: 24 * 30 })) }, { additionalProperties: false }),
        response: { 200: Type.Object({ id: Type.String(), secret: Type.String(), previous_secret_expires_at: Type.String() }) },
      },
    },
    async (req) => {
      const h = req.body.overlap_hours;
      return subscriptions.rotateSecret(principalOf(req).tenant.id, req.params.id, h === undefined ? undefined : h * 3600_000);
    },
  );
}
