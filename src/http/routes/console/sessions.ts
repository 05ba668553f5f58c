/** Console sign-in, the current session, and sign-out (contract: console-sessions-*.ts). */
import type { TypedApp } from '../../typed.js';
import { route } from '../../route.js';
import { isoAt } from '../../../clock.js';
import { DomainError } from '../../../errors/registry.js';
import { createConsoleSession } from '../../../contract/console-sessions-create.js';
import { getConsoleSession } from '../../../contract/console-sessions-get.js';
import { deleteConsoleSession } from '../../../contract/console-sessions-delete.js';
import type { ConsoleSession } from '../../../contract/console-sessions.js';
import type { Tenant, ConsoleSession as StoredSession } from '../../../store/index.js';
import { assertSameOrigin, clearSessionCookie, sessionIdentity, sessionToken, setSessionCookie, type SessionSettings } from '../../session.js';

const sessionView = (s: StoredSession, tenant: Tenant | undefined): ConsoleSession => ({
  kind: s.kind,
  tenant: tenant ? { id: tenant.id, slug: tenant.slug, name: tenant.name } : null,
  csrf_token: s.csrfToken,
  expires_at: isoAt(s.expiresAt),
});

export function createConsoleSessionRoute(app: TypedApp, deps: SessionSettings) {
  route(app, createConsoleSession, async (req, reply) => {
    // A sign-in posted from another site (login CSRF) is refused like any cross-origin change.
    if (req.headers.origin !== undefined) assertSameOrigin(req, deps);
    const input = req.body.kind === 'operator' ? { kind: 'operator' as const, adminToken: req.body.admin_token } : { kind: 'tenant' as const, tenant: req.body.tenant, secret: req.body.secret };
    const { token, session, principal } = await deps.sessions.signIn(input, req.ip);
    // The browser's cookie now names the new session: the one it named before ends with it, not
    // 12 hours later (the cookie is gone, but a copy of it would still work).
    const previous = sessionToken(req);
    if (previous !== undefined) await deps.sessions.signOut(previous);
    setSessionCookie(reply, deps, token);
    reply.header('cache-control', 'no-store');
    return reply.code(201).send(sessionView(session, principal?.tenant));
  });
}

export function getConsoleSessionRoute(app: TypedApp, deps: SessionSettings) {
  route(app, getConsoleSession, async (req, reply) => {
    const identity = await sessionIdentity(req, deps);
    if (!identity) throw new DomainError(2012, 'not signed in to the console');
    reply.header('cache-control', 'no-store');
    return sessionView(identity.session, identity.kind === 'tenant' ? identity.principal.tenant : undefined);
  });
}

export function deleteConsoleSessionRoute(app: TypedApp, deps: SessionSettings) {
  route(app, deleteConsoleSession, async (req, reply) => {
    const token = sessionToken(req);
    if (token !== undefined) {
      // Only the console's own pages may end a session (a cross-site DELETE is refused).
      assertSameOrigin(req, deps);
      await deps.sessions.signOut(token);
    }
    clearSessionCookie(reply, deps);
    return { signed_out: true as const };
  });
}
