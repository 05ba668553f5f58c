/**
 * Idempotency for sends and chat creation (six hours, by the clock). The key
 * is claimed in the store before any work, so identical requests racing —
 * in this process or another — produce one send; every caller gets the
 * recorded outcome. A different recipient, body or voice note under the same
 * key is `idempotency_collision`. Only outcomes of requests that got as far as a
 * message are recorded (see isFinal).
 *
 * The record holds the domain outcome (the result, or the typed failure with its ids) as
 * JSON, never an HTTP answer: a replay returns or throws it again and the caller maps it
 * exactly as the first time.
 */
import { createHash } from 'node:crypto';
import { DomainError } from '../../errors/registry.js';
import type { Clock } from '../../clock.js';
import type { Store } from '../../store/index.js';
import { DeliveryFailed, SendFailed, failedMessageId, failureFromRecord, failureRecord, type FailureRecord } from './failures.js';

export const IDEMPOTENCY_TTL_MS = 6 * 3600_000;
const WAIT_POLL_MS = 20;
const WAIT_LIMIT_MS = 15_000;

/**
 * Mixed into the request fingerprint. Records written before outcomes were recorded in domain
 * terms (before v2) held HTTP replies: their fingerprints never match, so a retry under such a
 * key (for at most six hours after the upgrade) is refused as a different request (1002) rather
 * than answered from a reply this version cannot read, and nothing is sent twice.
 */
const FINGERPRINT_VERSION = 'v2';

/** What a record holds: the result, or a final failure (JSON, times in epoch ms). */
type Recorded<T> = { kind: 'result'; result: T } | { kind: 'failure'; failure: FailureRecord };

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

/** A result as a record holds it (also written by a sweep that settles work a crash left in progress). */
export const recordedResult = (result: unknown): string => JSON.stringify({ kind: 'result', result } satisfies Recorded<unknown>);

/**
 * Handed to the work: `keep()` says that if the work fails from here on, its outcome is still to
 * be settled by something else (a sweep asking the line): the key stays in progress meanwhile,
 * so a retry cannot do the work a second time.
 */
export interface Claim {
  keep(): void;
}

/** A recorded outcome, returned or thrown again as it was. */
function replay<T>(response: string): T {
  const recorded = JSON.parse(response) as Recorded<T>;
  if (recorded.kind === 'failure') throw failureFromRecord(recorded.failure);
  return recorded.result;
}

/**
 * Failures worth recording: final ones that happened once a message existed (the driver
 * refused it). A request refused before that wrote nothing, so the same key stays free for
 * the corrected request, as Stripe does for requests that fail validation.
 */
const isFinal = (err: unknown): err is SendFailed | DeliveryFailed =>
  (err instanceof SendFailed || err instanceof DeliveryFailed) && !err.retryable && failedMessageId(err) !== undefined;

export function idempotency(deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;
  const inFlight = new Map<string, Promise<unknown>>();

  /** The response of a record another request holds, once it is done; undefined if it was released. */
  async function awaitRecorded(tenantId: string, route: string, key: string): Promise<string | undefined> {
    const deadline = Date.now() + WAIT_LIMIT_MS;
    while (Date.now() < deadline) {
      const rec = await store.idempotency.get(tenantId, route, key);
      if (!rec) return undefined; // released: the first attempt failed retryably
      if (rec.state === 'done') return rec.response!;
      await new Promise((r) => setTimeout(r, WAIT_POLL_MS));
    }
    throw new DomainError(1012, 'a request with this idempotency_key is still in progress; retry shortly');
  }

  return {
    /**
     * Runs `work` once per (tenant, route, key). `identity` holds the fields whose
     * change is a collision; `request` is the whole request (a change elsewhere
     * under the same key is also refused, as a different request). The result must be
     * JSON-serializable: a replay returns its JSON copy.
     */
    async run<T>(
      args: {
        tenantId: string;
        route: string;
        key: string | undefined;
        identity: Record<string, unknown>;
        request: unknown;
        /** True when work a failed attempt kept in progress (Claim.keep) is still being settled: a retry answers 1012 at once. */
        unsettled?: () => Promise<boolean>;
      },
      work: (claim: Claim) => Promise<T>,
    ): Promise<T> {
      const { tenantId, route, key } = args;
      if (!key) return work({ keep() {} });
      const identity = stableJson(args.identity);
      const fingerprint = createHash('sha256').update(`${FINGERPRINT_VERSION}\u0000${stableJson(args.request)}`).digest('hex');
      const slot = `${tenantId}\u0000${route}\u0000${key}`;
      const id = { tenant_id: tenantId, route, key };

      const collision = () =>
        new DomainError('idempotency_collision', 'this idempotency_key was used with a different recipient, body or voice note');

      for (let attempt = 0; attempt < 3; attempt++) {
        const pending = inFlight.get(slot);
        if (pending) {
          await pending.catch(() => undefined);
          continue;
        }
        const now = clock.now();
        const claim = await store.idempotency.claim(
          { ...id, fingerprint, identity, state: 'in_progress', http_status: null, response: null, created_at: now, expires_at: now + IDEMPOTENCY_TTL_MS },
          now,
        );
        if (!claim.claimed) {
          if (claim.existing.identity !== identity) throw collision();
          if (claim.existing.fingerprint !== fingerprint) {
            throw new DomainError(1002, 'this idempotency_key was used with different request parameters');
          }
          if (claim.existing.state !== 'done' && (await args.unsettled?.())) {
            throw new DomainError(1012, 'a request with this idempotency_key is still in progress: its outcome is being confirmed with the line; retry shortly');
          }
          const recorded = claim.existing.state === 'done' ? claim.existing.response! : await awaitRecorded(tenantId, route, key);
          if (recorded !== undefined) return replay<T>(recorded);
          continue; // released meanwhile: claim it ourselves
        }
        let kept = false;
        const running = (async (): Promise<T> => {
          try {
            const result = await work({ keep: () => (kept = true) });
            await store.idempotency.complete(id, recordedResult(result));
            return result;
          } catch (err) {
            if (kept) {
              // Left in progress: whatever settles the work records its outcome (or frees the key).
            } else if (isFinal(err)) {
              await store.idempotency.complete(id, JSON.stringify({ kind: 'failure', failure: failureRecord(err) } satisfies Recorded<T>));
            } else {
              await store.idempotency.release(id);
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
      throw new DomainError(1012, 'a request with this idempotency_key is still in progress; retry shortly');
    },
  };
}

export type Idempotency = ReturnType<typeof idempotency>;
