/**
 * Whether a principal authenticated earlier may still act now, read from the database (not the
 * 2 s credential cache, so a change made by another process counts at once). A long-lived
 * answer (the SSE stream) asks this as it goes: the credential it was opened with still works
 * (the signing secret has not expired; the console session has not ended), and the tenant and
 * account may still act. Returns the error a new request would get, or undefined.
 */
import { DomainError } from '../../errors/registry.js';
import type { Clock } from '../../clock.js';
import type { Store } from '../../store/index.js';
import { assertMayAct, type Principal } from './auth.js';
import { quotedSlug } from './settings.js';

export function accessCheck(deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;
  return async (p: Principal): Promise<DomainError | undefined> => {
    const now = clock.now();
    const c = p.credential;
    const [credentialWorks, tenant, account] = await Promise.all([
      c.kind === 'secret'
        ? store.accounts.secretExpiry(p.account.id, c.secretId).then((end) => end !== undefined && (end === null || end > now))
        : c.kind === 'session'
          ? store.consoleSessions.find(c.sessionIdHash, now).then((s) => s !== undefined)
          : Promise.resolve(false),
      store.tenants.getById(p.tenant.id),
      store.accounts.get(p.account.id),
    ]);
    if (!credentialWorks) {
      return new DomainError(2004, c.kind === 'session' ? 'the console session has ended; sign in again' : 'the signing secret this request was made with no longer works');
    }
    if (!tenant || !account) return new DomainError(2001, `tenant ${quotedSlug(p.tenant.slug)} not found`);
    try {
      assertMayAct(account, tenant);
    } catch (err) {
      if (err instanceof DomainError) return err;
      throw err;
    }
    return undefined;
  };
}

export type AccessCheck = ReturnType<typeof accessCheck>;
