/**
 * Idempotency for sends and chat creation (six hours, by the clock). The key
 * is claimed in the store before any work, so identical requests racing —
 * in this process or another — produce one send; every caller gets the
 * recorded answer. A different recipient, body or voice note under the same
 * key is a 422 `idempotency_collision`. Only outcomes of requests that got as far as a
 * message are recorded (see isFinal).
 */
import { createHash } from 'node:crypto';
import { ApiError, type ErrorCode } from '../../errors/registry.js';
import type { Clock } from '../../clock.js';
import type { Store } from '../../store/index.js';

export const IDEMPOTENCY_TTL_MS = 6 * 3600_000;
const WAIT_POLL_MS = 20;
const WAIT_LIMIT_MS = 15_000;

export interface Outcome {
  status: number;
  body: unknown;
}

/** Stable JSON (sorted keys) so the same request always hashes the same. */
export function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v as object)
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** A recorded outcome; a recorded failure (negative status) is thrown again as it was. */
function replay(o: Outcome): Outcome {
  if (o.status >= 0) return o;
  const e = o.body as { code: ErrorCode; message: string; extras: Record<string, unknown>; http: number; context?: Record<string, unknown> };
  const err = new ApiError(e.code, e.message, { ...e.extras, http: e.http });
  if (e.context) err.context = e.context;
  throw err;
}

/**
 * Failures worth recording: final ones that happened once a message existed (the driver
 * refused it). A request refused before that wrote nothing, so the same key stays free for
 * the corrected request, as Stripe does for requests that fail validation.
 */
const isFinal = (err: ApiError) => !err.retryable && err.context?.message_id !== undefined;

export function idempotency(deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;
  const inFlight = new Map<string, Promise<Outcome>>();

  async function awaitRecorded(tenantId: string, route: string, key: string): Promise<Outcome | undefined> {
    const deadline = Date.now() + WAIT_LIMIT_MS;
    while (Date.now() < deadline) {
      const rec = await store.idempotency.get(tenantId, route, key);
      if (!rec) return undefined; // released: the first attempt failed retryably
      if (rec.state === 'done') return { status: rec.http_status!, body: JSON.parse(rec.response!) };
      await new Promise((r) => setTimeout(r, WAIT_POLL_MS));
    }
    throw new ApiError(1012, 'a request with this idempotency_key is still in progress; retry shortly');
  }

  return {
    /**
     * Runs `work` once per (tenant, route, key). `identity` holds the fields whose
     * change is a collision; `request` is the whole request (a change elsewhere
     * under the same key is also refused, as a different request).
     */
    async run(
      args: { tenantId: string; route: string; key: string | undefined; identity: Record<string, unknown>; request: unknown },
      work: () => Promise<Outcome>,
    ): Promise<Outcome> {
      const { tenantId, route, key } = args;
      if (!key) return work();
      const identity = stableJson(args.identity);
      const fingerprint = createHash('sha256').update(stableJson(args.request)).digest('hex');
      const slot = `${tenantId}\u0000${route}\u0000${key}`;

      const collision = () =>
        new ApiError('idempotency_collision', 'this idempotency_key was used with a different recipient, body or voice note');

      for (let attempt = 0; attempt < 3; attempt++) {
        const pending = inFlight.get(slot);
        if (pending) {
          await pending.catch(() => undefined);
          continue;
        }
        const now = clock.now();
        const claim = await store.idempotency.claim(
          { tenant_id: tenantId, route, key, fingerprint, identity, state: 'in_progress', http_status: null, response: null, created_at: now, expires_at: now + IDEMPOTENCY_TTL_MS },
          now,
        );
        if (!claim.claimed) {
          if (claim.existing.identity !== identity) throw collision();
          if (claim.existing.fingerprint !== fingerprint) {
            throw new ApiError(1002, 'this idempotency_key was used with different request parameters');
          }
          const recorded = claim.existing.state === 'done'
            ? { status: claim.existing.http_status!, body: JSON.parse(claim.existing.response!) }
            : await awaitRecorded(tenantId, route, key);
          if (recorded) return replay(recorded);
          continue; // released meanwhile: claim it ourselves
        }
        const running = (async (): Promise<Outcome> => {
          try {
            const outcome = await work();
            await store.idempotency.complete({ tenant_id: tenantId, route, key }, outcome.status, JSON.stringify(outcome.body));
            return outcome;
          } catch (err) {
            if (err instanceof ApiError && isFinal(err)) {
              await store.idempotency.complete({ tenant_id: tenantId, route, key }, -err.http, JSON.stringify({ code: err.code, message: err.message, extras: err.extras, http: err.http, context: err.context }));
            } else {
              await store.idempotency.release({ tenant_id: tenantId, route, key });
            }
            throw err;
          }
        })();
        inFlight.set(slot, running);
        try {
          return await running;
        } finally {
          inFlight.delete(slot);
        }
      }
      throw new ApiError(1012, 'a request with this idempotency_key is still in progress; retry shortly');
    },
  };
}

export type Idempotency = ReturnType<typeof idempotency>;
