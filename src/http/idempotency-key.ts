/**
 * The idempotency key of a request: the body's `idempotency_key` (the spec's form) or the
 * `Idempotency-Key` header that Stripe-style clients send. Both at once must agree.
 */
import type { FastifyRequest } from 'fastify';
import { DomainError } from '../errors/registry.js';

export function idempotencyKeyOf(req: FastifyRequest, fromBody: string | undefined): string | undefined {
  const header = req.headers['idempotency-key'];
  if (header === undefined) return fromBody;
  // Node joins a repeated header into one value ("a, b"), which would pass for a key of its own.
  const given = req.raw.headersDistinct?.['idempotency-key'];
  if (typeof header !== 'string' || (given !== undefined && given.length !== 1) || header.length === 0 || header.length > 255) {
    throw new DomainError(1002, 'the Idempotency-Key header must be one value of 1 to 255 characters');
  }
  if (fromBody !== undefined && fromBody !== header) {
    throw new DomainError(1002, 'idempotency_key and the Idempotency-Key header differ; give one of them');
  }
  return header;
}
