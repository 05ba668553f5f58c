/** Request values the service takes in any case, brought to the one form the contract's enums list. */
import type { preValidationHookHandler } from 'fastify';
import { normalizeMimeType } from '../domain/media/vocabulary.js';

/**
 * A preValidation hook (after authentication, before validation) that lowercases and trims
 * the named string fields of a JSON body: MIME types are case-insensitive (RFC 2045), so
 * `IMAGE/PNG` passes the schema's `image/png`. Anything not a string is left to validation.
 */
export function lowercaseBodyFields(fields: readonly string[]): preValidationHookHandler {
  return (req, _reply, done) => {
    const body = req.body;
    if (body && typeof body === 'object' && !Array.isArray(body)) {
      const record = body as Record<string, unknown>;
      for (const f of fields) {
        const v = record[f];
        if (typeof v === 'string') record[f] = normalizeMimeType(v);
      }
    }
    done();
  };
}
