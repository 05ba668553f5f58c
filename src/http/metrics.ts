/**
 * HTTP metrics: every route gets its own recorder when it is registered (the route template is
 * its label, never the raw path, so ids in paths add no series); requests no route matched
 * share the label `unmatched`. Must be registered before the routes.
 */
import type { FastifyInstance, FastifyReply, onResponseHookHandler } from 'fastify';
import type { Metrics } from '../metrics/registry.js';

/**
 * An event stream writes its own response (a hijacked reply) for up to a minute. fastify still
 * runs onResponse when such a stream ends by itself (its 60 s are up: `finish`), though not when
 * the client drops it: so it is told apart here, by what it answered. Streams are
 * blueline_sse_connections, not requests with a minute-long duration.
 */
const isEventStream = (reply: FastifyReply) => {
  const type = reply.raw.getHeader('content-type');
  return typeof type === 'string' && type.startsWith('text/event-stream');
};

export function registerHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onRoute', (route) => {
    // HEAD (fastify's own, for each GET) gets no zero series of its own: it is counted as it comes.
    const methods = [route.method].flat().filter((m) => m !== 'HEAD');
    const record = metrics.httpRoute(route.url, methods);
    const hook: onResponseHookHandler = (req, reply, done) => {
      if (reply.statusCode !== 200 || !isEventStream(reply)) record(req.method, reply.statusCode, reply.elapsedTime);
      done();
    };
    route.onResponse = [...(route.onResponse ? [route.onResponse].flat() : []), hook];
  });
  // Requests the router refused run no hook: app.ts's frameworkErrors handler counts those.
  app.addHook('onResponse', (req, reply, done) => {
    if (req.is404) metrics.httpUnmatched(req.method, reply.statusCode, reply.elapsedTime);
    done();
  });
}
