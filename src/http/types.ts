import type { Principal } from '../domain/accounts-tenants/auth.js';

/** How a route authenticates; set per route in `config.auth`. */
export type AuthMode = 'tenant' | 'tenant-header' | 'bearer-only' | 'admin' | 'none';

declare module 'fastify' {
  interface FastifyRequest {
    /** Exact request bytes, for HMAC; empty when there was no body. */
    rawBody?: Buffer;
    /** A JSON parse failure, raised only after authentication (so 2012 beats 1004). */
    jsonError?: Error;
    principal?: Principal;
  }
  interface FastifyContextConfig {
    auth?: AuthMode;
  }
}
