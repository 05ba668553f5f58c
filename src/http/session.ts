/**
 * Console sessions on the wire: the HttpOnly, SameSite=Strict cookie, and the CSRF defence
 * for state-changing requests made with it (the Origin must be this service's and the
 * per-session token must come in a header, which a cross-site form cannot set).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../errors/registry.js';
import { SESSION_TTL_MS, type ConsoleSessions, type SessionIdentity } from '../domain/accounts-tenants/console-sessions.js';

export const SESSION_COOKIE = 'blueline_session';
export const CSRF_HEADER = 'x-csrf-token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface SessionSettings {
  sessions: ConsoleSessions;
  /** PUBLIC_BASE_URL: its origin is accepted, and https makes the cookie Secure. */
  publicBaseUrl: string | undefined;
}

/** The session cookie's token, if the request carries one. */
export function sessionToken(req: FastifyRequest): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const piece of header.split(';')) {
    const eq = piece.indexOf('=');
    if (eq > 0 && piece.slice(0, eq).trim() === SESSION_COOKIE) return decodeURIComponent(piece.slice(eq + 1).trim());
  }
  return undefined;
}

const secureFlag = (s: SessionSettings) => (s.publicBaseUrl?.startsWith('https:') ? '; Secure' : '');

export function setSessionCookie(reply: FastifyReply, s: SessionSettings, token: string): void {
  reply.header('set-cookie', `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${SESSION_TTL_MS / 1000}${secureFlag(s)}`);
}

export function clearSessionCookie(reply: FastifyReply, s: SessionSettings): void {
  reply.header('set-cookie', `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secureFlag(s)}`);
}

/**
 * Whether the request comes from this service's own pages: its Origin is the origin the
 * browser addressed (its Host) or PUBLIC_BASE_URL's. A browser always sends Origin on a
 * cross-origin request and on same-origin POST/PUT/PATCH/DELETE, so a missing one is refused.
 */
export function assertSameOrigin(req: FastifyRequest, s: SessionSettings): void {
  const origin = req.headers.origin;
  const allowed = new Set<string>();
  if (req.headers.host) allowed.add(`${req.protocol}://${req.headers.host}`);
  if (s.publicBaseUrl) allowed.add(new URL(s.publicBaseUrl).origin);
  if (!origin || !allowed.has(origin)) throw new DomainError(2005, 'cross-origin request refused: console requests must come from the console');
}

/**
 * Authenticates by session cookie when the request has no other credentials: undefined
 * when there is no cookie (the caller then asks for credentials as usual), else the identity
 * after the CSRF checks of a state-changing request.
 */
export async function sessionIdentity(req: FastifyRequest, s: SessionSettings): Promise<SessionIdentity | undefined> {
  const token = sessionToken(req);
  if (token === undefined) return undefined;
  const identity = await s.sessions.resolve(token);
  if (!identity) throw new DomainError(2004, 'the console session has ended; sign in again');
  if (!SAFE_METHODS.has(req.method)) {
    assertSameOrigin(req, s);
    const presented = req.headers[CSRF_HEADER];
    if (!s.sessions.csrfMatches(identity.session, Array.isArray(presented) ? presented[0] : presented)) {
      throw new DomainError(2005, `missing or wrong ${CSRF_HEADER} header for this console session`);
    }
  }
  return identity;
}
