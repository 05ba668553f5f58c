/**
 * Idempotency for sends and chat creation (six hours, by the clock). The key
 * is claimed in the store before any work, so identical requests racing —
 * in this process or another — produce one send; every caller gets the
 * recorded outcome. Any other request under the same key (a different
 * recipient, body or voice note, or another field) is `idempotency_collision`.
 * Only outcomes of requests that got as far as a message are recorded (see isFinal).
 *
 * The record holds the domain outcome (the result, or the typed failure with its ids) as
 * JSON, never an HTTP answer: a replay returns or throws it again and the caller maps it
 * exactly as the first time.
 *
 * A crash between the claim and the outcome: the claim has an owner and a lease (LEASE_MS,
 * renewed while the request runs), and lists the message of each step of the request, written
 * in the transaction that inserts the message and only while the owner holds the claim. A retry
 * that finds the lease past takes the claim over (one of several racing does) and runs the
 * request again with what its first owner recorded: a step whose message went out is answered
 * from it, not sent again; a step that never left is sent. Messages still `sending` are
 * settled by reconciliation first (reconcile.ts): until then a retry answers 1012.
 */
import { createHash, randomBytes } from 'node:crypto';
import { DomainError, ERROR_CODES, type ErrorCode } from '../../errors/registry.js';
import type { Clock } from '../../clock.js';
import type { IdempotencyId, Message, Repos, Store } from '../../store/index.js';
import { DeliveryFailed, SendFailed, failedMessageId, failureFromRecord, failureRecord, type FailureRecord } from './failures.js';

export const IDEMPOTENCY_TTL_MS = 6 * 3600_000;
const WAIT_POLL_MS = 20;
const WAIT_LIMIT_MS = 15_000;
/** How long a claim outlives its owner's last sign of life (business time); renewed every quarter of it. */
export const LEASE_MS = 60_000;

/** When a claim in progress stops being its owner's (records from before leases count from their creation). */
export const leaseEnd = (rec: { lease_until: number | null; created_at: number }): number => rec.lease_until ?? rec.created_at + LEASE_MS;

/** Renews `owner`'s lease on the claim every quarter of it while its work runs; returns what stops it. */
export function keepLease(deps: { store: Store; clock: Clock }, id: IdempotencyId, owner: string): () => void {
  const renew = setInterval(() => void deps.store.idempotency.renew(id, owner, deps.clock.now() + LEASE_MS).catch(() => undefined), LEASE_MS / 4);
  renew.unref();
  return () => clearInterval(renew);
}

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
  /** When the key was claimed first (business ms): what the request created is not older. */
  readonly since: number;
  /** A retry took the claim over from a request that stopped answering (a crash): what it created may be found. */
  readonly takenOver: boolean;
  /** The message of each step a previous owner of this claim recorded, none `sending` (empty on a fresh claim). */
  readonly recorded: readonly (Message | undefined)[];
  /**
   * Inserts `message` as step `i` of the request, recorded under the claim in one transaction
   * (`tx`'s, when the caller has one open); throws 1012 once the claim was taken over. Absent without a key.
   */
  readonly record?: (i: number, message: Message, tx?: Repos) => Promise<void>;
}

/** Records a step's message under the request's claim, in `tx` when the caller has a transaction open. */
export type RecordMessage = (message: Message, tx?: Repos) => Promise<void>;

export const noKey: Claim = { keep() {}, since: 0, takenOver: false, recorded: [] };

/**
 * Step `i` of a request: the message a previous owner recorded for it when it went out (or
 * failed for good, thrown again as then); otherwise `send` sends it, recording through `record`.
 */
export async function step<R extends { message: Message }>(
  claim: Claim,
  i: number,
  send: (record: RecordMessage | undefined) => Promise<R>,
  reuse: (m: Message) => R,
): Promise<R> {
  const before = claim.recorded[i];
  if (before && before.status !== 'failed') return reuse(before);
  if (before?.error_code != null && ERROR_CODES[before.error_code as ErrorCode]?.retryable === false) {
    throw new DeliveryFailed(new DomainError(before.error_code as ErrorCode, `message ${before.id} was not sent`), before.id, before.line_id ?? '');
  }
  const record = claim.record;
  return send(record && ((m, tx) => record(i, m, tx)));
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
  /**
   * The attempt under way in this process for each key (from before its claim is written, so no
   * request here under the key slips in beside it), with its request's fingerprint.
   */
  const inFlight = new Map<string, { fingerprint: string; done: Promise<unknown> }>();

  const stillInProgress = (detail: string) => new DomainError(1012, `a request with this idempotency_key is still in progress${detail}; retry shortly`);

  /** The record once another request is done with it: its response, 'released', or 'lapsed' when its owner stopped renewing. */
  async function awaitRecorded(id: IdempotencyId): Promise<string | 'released' | 'lapsed'> {
    const deadline = Date.now() + WAIT_LIMIT_MS;
    while (Date.now() < deadline) {
      const rec = await store.idempotency.get(id.tenant_id, id.route, id.key);
      if (!rec) return 'released'; // the first attempt failed retryably
      if (rec.state === 'done') return rec.response!;
      if (leaseEnd(rec) <= clock.now()) return 'lapsed';
      await new Promise((r) => setTimeout(r, WAIT_POLL_MS));
    }
    throw stillInProgress('');
  }

  const messagesOf = (tenantId: string, ids: readonly string[]) => Promise.all(ids.map((m) => (m ? store.messages.get(tenantId, m) : undefined)));
  const parseSteps = (json: string | null): string[] => (json ? (JSON.parse(json) as string[]) : []);

  /** Runs the work as the claim's owner, renewing its lease, and records (or frees) the outcome. */
  async function execute<T>(id: IdempotencyId, owner: string, since: number | undefined, recorded: (Message | undefined)[], steps: string[], work: (claim: Claim) => Promise<T>): Promise<T> {
    let kept = false;
    const stopRenewing = keepLease(deps, id, owner);
    const claim: Claim = {
      keep: () => (kept = true),
      since: since ?? clock.now(),
      takenOver: since !== undefined,
      recorded,
      record: async (i, message, outer) => {
        const next = [...steps];
        next[i] = message.id;
        const recordIn = async (tx: Repos) => {
          if (!(await tx.idempotency.recordSteps(id, owner, next, clock.now() + LEASE_MS))) {
            throw stillInProgress(': a retry took it over after this request stopped answering');
          }
          await tx.messages.insert(message);
        };
        await (outer ? recordIn(outer) : store.transaction(recordIn));
        steps.splice(0, steps.length, ...next);
      },
    };
    try {
      const result = await work(claim);
      await store.idempotency.complete(id, recordedResult(result), owner);
      return result;
    } catch (err) {
      if (kept) {
        // Left in progress: whatever settles the work records its outcome (or frees the key).
      } else if (isFinal(err)) {
        await store.idempotency.complete(id, JSON.stringify({ kind: 'failure', failure: failureRecord(err) } satisfies Recorded<T>), owner);
      } else if (claim.takenOver || (await messagesOf(id.tenant_id, steps)).some((m) => m && m.status !== 'failed')) {
        // A message of this request went out (or may have): a retry resumes from what it recorded,
        // never sending it again. A claim taken over from an owner that died keeps its start too:
        // what that owner did (the lead it created) is still this request's.
        await store.idempotency.lapse(id, owner, clock.now());
      } else {
        await store.idempotency.release(id, owner);
      }
      throw err;
    } finally {
      stopRenewing();
    }
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
        /** What `identity` holds, in words, for the collision's message (e.g. "a different recipient, body or voice note"). */
        identityWords: string;
        request: unknown;
        /** True when work a failed attempt kept in progress (Claim.keep) is still being settled: a retry answers 1012 at once. */
        unsettled?: () => Promise<boolean>;
      },
      work: (claim: Claim) => Promise<T>,
    ): Promise<T> {
      const { tenantId, route, key } = args;
      if (!key) return work(noKey);
      const identity = stableJson(args.identity);
      const fingerprint = createHash('sha256').update(`${FINGERPRINT_VERSION}\u0000${stableJson(args.request)}`).digest('hex');
      const slot = `${tenantId}\u0000${route}\u0000${key}`;
      const id = { tenant_id: tenantId, route, key };

      // Any other request under a used key is a collision (as Stripe answers it): one code for a
      // client to branch on, and the message says whether the content or another field differs.
      const collision = (what: string) => new DomainError('idempotency_collision', `this idempotency_key was used with ${what}`);
      const beingConfirmed = () => stillInProgress(': its outcome is being confirmed with the line');

      /** One attempt: the outcome, or undefined to look at the key again. */
      const attempt = async (): Promise<{ value: T } | undefined> => {
        const now = clock.now();
        const owner = randomBytes(12).toString('hex');
        const claim = await store.idempotency.claim(
          { ...id, fingerprint, identity, state: 'in_progress', http_status: null, response: null, created_at: now, expires_at: now + IDEMPOTENCY_TTL_MS, owner, lease_until: now + LEASE_MS },
          now,
        );
        if (claim.claimed) return { value: await execute(id, owner, undefined, [], [], work) };
        const existing = claim.existing;
        // The same request (whatever its record's identity holds: one written before a field joined the identity).
        if (existing.fingerprint !== fingerprint) {
          throw collision(existing.identity !== identity ? args.identityWords : 'the same content but other request parameters (another field differs)');
        }
        if (existing.state === 'done') return { value: replay<T>(existing.response!) };
        if (await args.unsettled?.()) throw beingConfirmed();
        if (leaseEnd(existing) > now) {
          const recorded = await awaitRecorded(id);
          return recorded === 'released' || recorded === 'lapsed' ? undefined : { value: replay<T>(recorded) };
        }
        // Its owner is gone. A message still `sending` is settled by reconciliation first.
        const before = await messagesOf(tenantId, parseSteps(existing.message_ids));
        if (before.some((m) => m?.status === 'sending')) throw beingConfirmed();
        if (!(await store.idempotency.takeOver(id, existing.owner, owner, now, LEASE_MS))) return undefined;
        // Ours now: nothing more is recorded under the old owner, so this is all it did.
        const rec = await store.idempotency.get(tenantId, route, key);
        const steps = parseSteps(rec?.message_ids ?? null);
        const recorded = await messagesOf(tenantId, steps);
        if (recorded.some((m) => m?.status === 'sending') || (await args.unsettled?.())) {
          await store.idempotency.lapse(id, owner, now);
          throw beingConfirmed();
        }
        return { value: await execute(id, owner, existing.created_at, recorded, steps, work) };
      };

      // Waiting for the attempt under way here is not a try: it ends, and the key is looked at again.
      for (let tries = 0; tries < 5; ) {
        const pending = inFlight.get(slot);
        if (pending) {
          const settled = await pending.done.then(
            (outcome) => ({ outcome: outcome as { value: T } | undefined }),
            (err: unknown) => ({ err }),
          );
          if (pending.fingerprint === fingerprint) {
            // The same request ended while this one waited for it: its answer is this one's too. A
            // failure that records nothing (retryable) frees the key, and running the request again
            // here would send a second time what the client sent once (a retry is the client's call).
            if ('err' in settled) throw settled.err;
            // As a replay answers it: the recorded JSON's copy.
            if (settled.outcome) return JSON.parse(recordedResult(settled.outcome.value)).result as T;
          }
          continue; // another request under the key, or nothing settled: look at the key again
        }
        const running = attempt();
        const entry = { fingerprint, done: running };
        inFlight.set(slot, entry);
        let outcome: { value: T } | undefined;
        try {
          outcome = await running;
        } finally {
          if (inFlight.get(slot) === entry) inFlight.delete(slot);
        }
        if (outcome) return outcome.value;
        tries++;
      }
      throw stillInProgress('');
    },
  };
}

export type Idempotency = ReturnType<typeof idempotency>;
