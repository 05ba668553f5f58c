/**
 * A tenant's own view of its signing secret: when the current one was issued, and which
 * replaced ones still work until when. The secret belongs to the account, so a rotation from
 * any of its tenants changes it for all of them; the secrets themselves are never read here.
 */
import type { Clock } from '../../clock.js';
import type { Store } from '../../store/index.js';

export interface SigningSecretStatus {
  accountId: string;
  /** When the current secret was issued. */
  createdAt: number;
  /** When it last replaced another one (null: the account's first secret). */
  rotatedAt: number | null;
  /** Replaced secrets that still work, newest first. */
  previous: { createdAt: number; expiresAt: number }[];
  /** The account's tenants: the secret signs for every one of them. */
  tenants: string[];
}

export function signingSecretStatus(deps: { store: Store; clock: Clock }) {
  return async (accountId: string): Promise<SigningSecretStatus> => {
    const now = deps.clock.now();
    const [times, tenants] = await Promise.all([deps.store.accounts.secretTimes(accountId), deps.store.tenants.listByAccount(accountId)]);
    const current = times.find((t) => t.expires_at === null) ?? times[0]!;
    const previous = times.filter((t) => t !== current && t.expires_at !== null && t.expires_at > now);
    return {
      accountId,
      createdAt: current.created_at,
      rotatedAt: times.length > 1 ? current.created_at : null,
      previous: previous.map((t) => ({ createdAt: t.created_at, expiresAt: t.expires_at! })),
      tenants: tenants.map((t) => t.slug).sort(),
    };
  };
}

export type SigningSecretStatusOf = ReturnType<typeof signingSecretStatus>;
