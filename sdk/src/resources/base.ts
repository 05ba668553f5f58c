import type { Core } from '../core.js';

export abstract class Resource {
  constructor(protected readonly core: Core) {}
}

/** A path segment from a caller's id: encoded, so an id can never change the route. */
export const seg = (id: string) => {
  if (typeof id !== 'string' || id === '') throw new TypeError('an id must be a non-empty string');
  return encodeURIComponent(id);
};

/** Per-call options every method takes. */
export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** A fresh idempotency key (RFC 4122 v4), generated once per call and reused by its retries. */
export const newIdempotencyKey = () => `sdk_${crypto.randomUUID()}`;
