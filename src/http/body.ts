/**
 * JSON bodies are kept as raw bytes for HMAC checks and parsed here. A parse
 * failure is stashed and raised after authentication, so an unauthenticated
 * caller learns nothing from body errors.
 */
import type { FastifyInstance } from 'fastify';

export function registerJsonBody(app: FastifyInstance): void {
  // JSON only: fastify's text/plain parser would take a body the HMAC never sees (415 instead).
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    const raw = body as Buffer;
    req.rawBody = raw;
    if (raw.length === 0) return done(null, undefined);
    try {
      done(null, JSON.parse(raw.toString('utf8')));
    } catch (err) {
      req.jsonError = err as Error;
      done(null, undefined);
    }
  });
}
