/**
 * A known path asked with a method it does not take is 405 with `Allow`, not "no route" (404).
 * fastify's router answers only "no route for this method and path", so the routes' paths are
 * kept here as patterns as they are registered. Answered in onRequest, before the body is read
 * and before authentication: which methods a path takes is public (/openapi.json), and an
 * unrouted body method such as QUERY would otherwise fail on its missing Content-Type first.
 */
import type { FastifyInstance } from 'fastify';
import { HttpFailure } from './errors.js';

interface PathMethods {
  pattern: RegExp;
  methods: Set<string>;
}

/** A fastify route path as a pattern: `:param` is one segment, `*` the rest. */
function patternOf(url: string): RegExp {
  const source = url
    .split('/')
    .map((segment) => (segment === '*' ? '.*' : segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}$`);
}

export function registerMethodNotAllowed(app: FastifyInstance): void {
  const byUrl = new Map<string, PathMethods>();
  app.addHook('onRoute', (route) => {
    const entry = byUrl.get(route.url) ?? { pattern: patternOf(route.url), methods: new Set<string>() };
    for (const m of [route.method].flat()) entry.methods.add(m);
    // fastify answers HEAD for every GET route.
    if (entry.methods.has('GET')) entry.methods.add('HEAD');
    byUrl.set(route.url, entry);
  });

  /** The methods some route takes at `path`, or undefined when no route has that path. */
  function allowedAt(path: string): string[] | undefined {
    const methods = new Set<string>();
    for (const { pattern, methods: m } of byUrl.values()) if (pattern.test(path)) m.forEach((x) => methods.add(x));
    return methods.size ? [...methods].sort() : undefined;
  }

  app.addHook('onRequest', (req, reply, done) => {
    if (!req.is404) return done();
    const path = req.url.split('?', 1)[0]!;
    const allowed = allowedAt(path);
    if (!allowed) return done();
    reply.header('Allow', allowed.join(', '));
    done(new HttpFailure(2011, `${req.method} is not allowed on this path; it takes ${allowed.join(', ')}`, 405, { allowedMethods: allowed }));
  });
}
