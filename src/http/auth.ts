/**
 * Authentication hook. Runs after the body is read (HMAC needs the raw bytes)
 * and before schema validation, so unauthenticated callers only ever see auth
 * errors. Each route declares its mode in `config.auth`; anything under /api/
 * defaults to tenant auth, so a route can't be left open by omission.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DomainError } from '../errors/registry.js';
import { bearerToken, type Authenticator } from '../domain/accounts-tenants/auth.js';
import type { AuthMode } from './types.js';
import { andThen, type MaybePromise } from '../domain/maybe-promise.js';
import { sessionIdentity, type SessionSettings } from './session.js';
import { InvalidUtf8 } from './body.js';
import { quotedSlug } from '../domain/accounts-tenants/settings.js';

const EMPTY = Buffer.alloc(0);

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest();

/** Constant-time compare against a known secret's digest, for strings of any length (hash first, then compare). */
function matchesDigest(candidate: string, digest: Buffer): boolean {
  return timingSafeEqual(sha256(candidate), digest);
}

export function registerAuth(app: FastifyInstance, deps: { auth: Authenticator; adminToken: string; session?: SessionSettings }): void {
  const { auth } = deps;
  const adminTokenDigest = sha256(deps.adminToken);

  // Callback-style and synchronous while the credentials are cached: no promise per request.
  app.addHook('preValidation', (req, _reply, done) => {
    let authenticated: MaybePromise<void>;
    try {
      authenticated = authenticateRequest(req);
    } catch (err) {
      return done(err as Error);
    }
    if (authenticated instanceof Promise) authenticated.then(() => done(), done);
    else done();
  });

  function authenticateRequest(req: FastifyRequest): MaybePromise<void> {
    const mode: AuthMode = req.routeOptions.config?.auth ?? (req.url.startsWith('/api/') ? 'tenant' : 'none');
    // HubSpot's signature is checked by the CRM routes' own hook (routes/crm/hubspot/context.ts), which holds the client secret.
    if (mode === 'hubspot') return checkBody(req);
    // A console session (cookie + CSRF header) stands in for credentials the request lacks.
    if (deps.session && mode !== 'none' && !req.principal && !header(req, 'authorization') && !header(req, auth.signatureHeader) && req.headers.cookie) {
      return authenticateBySession(req, mode, deps.session, auth.tenantHeader);
    }
    if (mode === 'admin') {
      const authorization = header(req, 'authorization');
      if (!authorization) throw new DomainError(2012, 'send Authorization: Bearer <ADMIN_TOKEN>');
      const token = bearerToken(authorization);
      if (!token || !matchesDigest(token, adminTokenDigest)) {
        throw new DomainError(2004, 'invalid admin token (tenant signing secrets are not accepted here)');
      }
      return checkBody(req);
    }
    if (mode === 'none') return checkBody(req);
    // The upload route accepted its slot's own token in an earlier hook (routes/attachments).
    if (mode === 'bearer-only' && req.principal) return checkBody(req);
    // Refused before any HMAC is computed: nothing is learnt about the signature.
    if (mode === 'tenant-bearer' && !header(req, 'authorization') && header(req, auth.signatureHeader)) {
      throw new DomainError(
        2004,
        `this route answers with a secret, so it takes Authorization: Bearer <signing secret> (or a console session), not ${auth.signatureHeader}: a request signature copied from a log could be replayed to be issued one`,
      );
    }
    const principal = auth.authenticate({
      authorization: header(req, 'authorization'),
      signature: header(req, auth.signatureHeader),
      tenantSlug: header(req, auth.tenantHeader),
      rawBody: req.rawBody ?? EMPTY,
      requireTenantHeader: mode === 'tenant-header',
      bearerOnly: mode === 'bearer-only',
    });
    return andThen(principal, (p) => {
      req.principal = p;
      checkBody(req);
    });
  }
}

async function authenticateBySession(req: FastifyRequest, mode: AuthMode, session: SessionSettings, tenantHeader: string): Promise<void> {
  const identity = await sessionIdentity(req, session);
  if (!identity) throw new DomainError(2012, mode === 'admin' ? 'send Authorization: Bearer <ADMIN_TOKEN>' : 'send Authorization: Bearer <secret>');
  if (mode === 'admin') {
    if (identity.kind !== 'operator') throw new DomainError(2004, 'this console session is a tenant\'s; operator routes need the operator');
  } else {
    if (identity.kind !== 'tenant') throw new DomainError(2004, 'this console session is the operator\'s; tenant routes need a tenant session');
    // A session stands for one tenant: a request naming another is refused, never served as the session's.
    const named = header(req, tenantHeader)?.trim();
    if (named && named !== identity.principal.tenant.slug) {
      throw new DomainError(2001, `tenant ${quotedSlug(named)} not found for this console session (it is ${quotedSlug(identity.principal.tenant.slug)}'s)`);
    }
    req.principal = identity.principal;
  }
  checkBody(req);
}

/** Body errors come after authentication, so an unauthenticated caller learns nothing from them. */
function checkBody(req: FastifyRequest): void {
  if (req.jsonError instanceof InvalidUtf8) throw new DomainError(1004, 'request body is not valid JSON: it is not valid UTF-8');
  if (req.jsonError) {
    // Not the parser's own message: it quotes the body, which may hold a secret.
    const at = /position (\d+)/.exec(req.jsonError.message)?.[1];
    throw new DomainError(1004, `request body is not valid JSON${at ? ` (at position ${at})` : ''}`);
  }
  // A bodyless POST/PATCH validates as {}: its required fields then read as missing (1001).
  if (req.body === undefined && (req.method === 'POST' || req.method === 'PATCH')) req.body = {};
}

/** The authenticated principal of a tenant route (set by the hook above). */
export function principalOf(req: FastifyRequest) {
  if (!req.principal) throw new DomainError(3001, 'route reached without authentication');
  return req.principal;
}
