/**
 * HTTP metrics: every route gets its own recorder when it is registered (the route template is
 * its label, never the raw path, so ids in paths add no series); requests no route matched
 * share the label `unmatched`. Must be registered before the routes.
 */
import type { FastifyInstance, onResponseHookHandler } from 'fastify';
import type { Metrics } from '../metrics/registry.js';

export function registerHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onRoute', (route) => {
    // An event stream's reply is taken over (hijacked) once open, so fastify's onResponse never
    // runs for it: open streams are blueline_sse_connections, not requests with a duration.
    const record = metrics.httpRoute(route.url);
    const hook: onResponseHookHandler = (req, reply, done) => {
      record(req.method, reply.statusCode, reply.elapsedTime);
      done();
    };
    route.onResponse = [...(route.onResponse ? [route.onResponse].flat() : []), hook];
  });
  const unmatched = metrics.httpRoute('unmatched');
  app.addHook('onResponse', (req, reply, done) => {
    if (req.is404) unmatched(req.method, reply.statusCode, reply.elapsedTime);
    done();
  });
}
