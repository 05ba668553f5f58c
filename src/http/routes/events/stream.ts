import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { parseSince } from '../../since.js';
import { streamEvents } from '../../../contract/events-stream.js';
import type { SseHub } from '../../../delivery/sse.js';
import type { Clock } from '../../../clock.js';
import type { AccessCheck } from '../../../domain/accounts-tenants/access-check.js';

const EVENT_ID = /^evt_[0-9A-Z]{26}$/;

export function streamEventsRoute(app: TypedApp, deps: { sse: SseHub; clock: Clock; accessCheck: AccessCheck }) {
  route(app, streamEvents, async (req, reply) => {
    const principal = principalOf(req);
    const lastEventId = req.headers['last-event-id'];
    const sinceMs = parseSince(req.query.since);
    // The stream writes the response itself, for as long as it lives.
    reply.hijack();
    reply.raw.setHeader('X-Trace-ID', req.id);
    // Its credential and tenant are checked again at every wake-up and poll: revoked, it ends.
    const allowed = async () => (await deps.accessCheck(principal))?.message;
    const resume = { lastEventId: typeof lastEventId === 'string' && EVENT_ID.test(lastEventId) ? lastEventId : undefined, sinceMs };
    await deps.sse.serve(principal.tenant, reply.raw, resume, () => deps.clock.now(), allowed);
  });
}
