/**
 * JSON bodies are kept as raw bytes for HMAC checks and parsed here. A parse
 * failure is stashed and raised after authentication, so an unauthenticated
 * caller learns nothing from body errors.
 */
import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';

/** JSON is UTF-8 (RFC 8259): other bytes would be decoded as U+FFFD and sent on as such. */
export class InvalidUtf8 extends Error {
  constructor() {
    super('request body is not valid UTF-8');
  }
}

export function registerJsonBody(app: FastifyInstance): void {
  // JSON only: fastify's text/plain parser would take a body the HMAC never sees (415 instead).
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    const raw = body as Buffer;
    req.rawBody = raw;
    if (raw.length === 0) return done(null, undefined);
    if (!isUtf8(raw)) {
      req.jsonError = new InvalidUtf8();
      return done(null, undefined);
    }
    try {
      done(null, JSON.parse(raw.toString('utf8')));
    } catch (err) {
      req.jsonError = err as Error;
      done(null, undefined);
    }
  });
}
