/** Webhook subscriptions: each with its own secret (`whsec_…`, shown once), rotatable with an overlap. */
import { randomBytes } from 'node:crypto';
import { DomainError } from '../../errors/registry.js';
import type { Clock } from '../../clock.js';
import type { Store, Subscription } from '../../store/index.js';
import { resolveWebhookHost, validateWebhookUrl, type AddressGuard } from '../../net/index.js';
import { randomHex } from '../ids.js';
import { DEV_INBOX_URL, EVENT_TYPES } from './vocabulary.js';

export { DEV_INBOX_URL, EVENT_TYPES };
const DEFAULT_OVERLAP_MS = 24 * 3600_000;
/** Secrets that may sign one delivery at once (each adds a v1= to the signature header). */
const MAX_OVERLAPPING_SECRETS = 5;

const newSecret = () => `whsec_${randomBytes(24).toString('base64url')}`;
const DEV_INBOX_HOST = 'dev-inbox';

/**
 * Whether a subscription url means the dev inbox. `https://DEV-INBOX` or `https://dev-inbox/`
 * must not become an outbound target (a POST to a host named dev-inbox); a dev-inbox URL with
 * anything more (path, query, port, user) is ambiguous and refused.
 */
export function devInboxUrl(url: string): 'dev-inbox' | 'ambiguous' | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return undefined;
  }
  // URL lowercases (and percent-decodes) the host; a trailing dot names the same host.
  if (parsed.hostname.replace(/\.$/, '') !== DEV_INBOX_HOST) return undefined;
  const plain = parsed.protocol === 'https:' && parsed.pathname === '/' && !parsed.search && !parsed.hash && !parsed.port && !parsed.username && !parsed.password;
  return plain ? 'dev-inbox' : 'ambiguous';
}

/**
 * A subscription's url as stored, for a new subscription and a changed one alike: the dev inbox in
 * its one form (recording and replay recognise it by it), else a webhook url whose name resolves
 * to addresses deliveries may reach (a private one is refused now, as voice-note audio_url is,
 * not at every delivery). 1002 with the reason otherwise.
 */
export async function checkedWebhookUrl(url: string, options: { allowPrivateNetworks: boolean; guard?: AddressGuard }): Promise<string> {
  const devInbox = devInboxUrl(url);
  if (devInbox === 'ambiguous') throw new DomainError(1002, `url is not allowed: the dev inbox is selected with exactly ${DEV_INBOX_URL}`);
  if (devInbox) return DEV_INBOX_URL;
  const check = validateWebhookUrl(url, options);
  if (!check.ok) throw new DomainError(1002, `url is not allowed: ${check.reason}`);
  const resolved = await resolveWebhookHost(url, options);
  if (!resolved.ok) throw new DomainError(1002, `url is not allowed: ${resolved.reason}`);
  return url.trim();
}

export function subscriptionsService(deps: { store: Store; clock: Clock; allowPrivateNetworks: boolean; addressGuard?: AddressGuard }) {
  const { store, clock } = deps;

  async function owned(tenantId: string, id: string) {
    const s = await store.events.subscription(tenantId, id);
    if (!s) throw new DomainError(2011, `webhook subscription ${id} not found`);
    return s;
  }

  return {
    /** A new subscription and its secret, which is shown this once. */
    async create(tenantId: string, input: { url: string; events: readonly string[] }): Promise<{ subscription: Subscription; secret: string }> {
      if (input.events.length === 0) throw new DomainError(1002, 'events needs at least one event type');
      const unknown = input.events.filter((e) => !(EVENT_TYPES as readonly string[]).includes(e));
      if (unknown.length) throw new DomainError(1002, `unknown event type ${unknown.join(', ')}; supported: ${EVENT_TYPES.join(', ')}`);
      const url = await checkedWebhookUrl(input.url, { allowPrivateNetworks: deps.allowPrivateNetworks, guard: deps.addressGuard });
      const secret = newSecret();
      const sub = { id: `sub_${randomHex(12)}`, tenant_id: tenantId, url, events: [...new Set(input.events)], secret, created_at: clock.now() };
      await store.events.insertSubscription(sub);
      return { subscription: { id: sub.id, tenant_id: tenantId, url, events: sub.events, secrets: [{ secret, expires_at: null }], created_at: sub.created_at, enabled: true }, secret };
    },
    list: (tenantId: string): Promise<Subscription[]> => store.events.subscriptions(tenantId),
    get: (tenantId: string, id: string): Promise<Subscription> => owned(tenantId, id),
    async remove(tenantId: string, id: string): Promise<void> {
      await owned(tenantId, id);
      await store.events.deleteSubscription(tenantId, id);
    },
    /**
     * A new secret. The one it replaces signs until the overlap ends, and earlier ones still in
     * their own overlap keep signing until theirs: deliveries carry one v1= per live secret.
     * Overlap 0 is the answer to a leak: the new secret alone signs from now on.
     */
    async rotateSecret(tenantId: string, id: string, overlapMs = DEFAULT_OVERLAP_MS): Promise<{ id: string; secret: string; previousSecretExpiresAt: number }> {
      // Decided on the secrets as they are inside the store's transaction: a concurrent rotation
      // waits for this one and replaces the secret this one issued (which then stays in its overlap).
      const rotated = await store.events.rotateSubscriptionSecret(tenantId, id, (s) => {
        const now = clock.now();
        const until = now + overlapMs;
        const [current, ...earlier] = s.secrets;
        const stillSigning = earlier.filter((e): e is { secret: string; expires_at: number } => e.expires_at !== null && e.expires_at > now);
        const previous = overlapMs > 0 ? [{ secret: current!.secret, expires_at: until }, ...stillSigning] : [];
        // Counted as they would be after the rotation: one with overlap 0 is never refused.
        if (previous.length + 1 > MAX_OVERLAPPING_SECRETS) {
          const free = new Date(Math.min(...stillSigning.map((e) => e.expires_at))).toISOString();
          throw new DomainError(1012, `${stillSigning.length + 1} secrets of this subscription are still valid; rotate again after ${free}, when the oldest overlap ends, or with overlap_hours 0 (the new secret alone signs)`);
        }
        const secret = newSecret();
        return { next: secret, previous, result: { id, secret, previousSecretExpiresAt: until } };
      });
      if (!rotated) throw new DomainError(2011, `webhook subscription ${id} not found`);
      return rotated;
    },
  };
}

export type SubscriptionsService = ReturnType<typeof subscriptionsService>;
