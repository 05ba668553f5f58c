import type { Principal } from '../domain/accounts-tenants/auth.js';
import type { AuthMode, ErrorShape } from '../contract/operation.js';

/** How a route authenticates; set per route in `config.auth` (the contract's modes). */
export type { AuthMode };

declare module 'fastify' {
  interface FastifyRequest {
    /** Exact request bytes, for HMAC; empty when there was no body. */
    rawBody?: Buffer;
    /** A JSON parse failure, raised only after authentication (so 2012 beats 1004). */
    jsonError?: Error;
    principal?: Principal;
    /** The tenant of a request refused after authentication (suspended, unverified), for its log line. */
    refusedTenant?: string;
  }
  interface FastifyContextConfig {
    auth?: AuthMode;
    /** 'send': failures use the send route's flat shape (spec rule 5); 'crm'/'crm-workflow': the HubSpot routes' (routes/crm/hubspot/context.ts). */
    errorShape?: ErrorShape;
    /** The code for a missing required field on this route (spec: 1001; chat parts 1003; edit 1002). */
    missingFieldCode?: 1001 | 1002 | 1003;
    /** Takes a token from the tenant's rate-limit bucket before the handler runs. */
    rateLimited?: boolean;
    /**
     * Path parameters that are credentials (the BlueBubbles webhook token): logged as
     * `[redacted]`, so a log line never carries them (http/log-paths.ts).
     */
    secretParams?: string[];
    /** The handler (or its context's error handler) answers some failures itself: logged after the answer in the default request log. */
    answersFailures?: boolean;
    /** Large bodies: a minimum transfer rate instead of the JSON routes' whole-body timeout (http/slow-body.ts). */
    minBodyRate?: boolean;
    /** Streams a stored file: a client taking it slower than the upload's minimum rate is cut off (http/slow-body.ts). */
    minAnswerRate?: boolean;
  }
}
