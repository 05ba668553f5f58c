/**
 * CRM idempotency (card send: tenant + contact + second; workflow: callbackId):
 * the key is claimed in the database before any work, so HubSpot's retries and
 * double clicks — in this process or another — do the work once; a replay gets
 * the recorded outcome, marked a duplicate. Retryable failures free the key, and so does
 * "still in progress" (1012, with a Retry-After: 30 s when it gives none): it is no outcome.
 *
 * The claim has an owner and a lease, renewed while the work runs (as the messaging
 * idempotency's): a process that died mid-work leaves a lease that ends, and HubSpot's next
 * retry takes the claim over and does the work again. That is safe because the work's send
 * carries its own idempotency key (derived from this one): a message the dead process sent is
 * answered from, not sent again.
 */
import { randomBytes } from 'node:crypto';
import { DomainError, type ErrorCode, type ErrorDetails } from '../../errors/registry.js';
import type { Clock } from '../../clock.js';
import type { Store } from '../../store/index.js';
import { LEASE_MS, keepLease, leaseEnd } from '../../domain/messaging/idempotency.js';
import { isInProgress } from './send.js';

const WAIT_POLL_MS = 20;
const WAIT_LIMIT_MS = 10_000;
/** When to ask again about a claim still in progress (its work has run for WAIT_LIMIT_MS already). */
const IN_PROGRESS_RETRY_S = 30;

/** A record that never expires (the slot's `ttlMs`): its key is answered from it for good. */
export const FOREVER = Number.POSITIVE_INFINITY;
/** What a record that never expires stores as its expiry (a bigint column takes no infinity). */
const NEVER_MS = Number.MAX_SAFE_INTEGER;

/** The record holds the domain outcome (JSON), never an answer of ours: a replay is mapped as the first time. */
type Recorded<T> = { ok: true; result: T } | { ok: false; code: ErrorCode; message: string; details?: ErrorDetails };

/** A recorded failure answered again: the CRM answer marks it `replayed: true`; `shortName` when the record kept the answer's name. */
export class ReplayedFailure extends DomainError {
  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}, readonly shortName?: string) {
    super(code, message, details);
  }
}

/** The work's outcome, and whether it is a replay of a recorded one. */
export interface OnceOutcome<T> {
  result: T;
  duplicate: boolean;
}

function replay<T>(r: Recorded<unknown>, read: (recorded: unknown) => T): OnceOutcome<T> {
  if (r.ok) return { result: read(r.result), duplicate: true };
  throw new ReplayedFailure(r.code, r.message, r.details ?? {});
}

/** `read` turns a recorded result back into the work's type (records of an earlier version included). */
export async function once<T>(
  deps: { store: Store; clock: Clock },
  slot: { tenantId: string; route: string; key: string; ttlMs: number },
  work: () => Promise<T>,
  read: (recorded: unknown) => T,
): Promise<OnceOutcome<T>> {
  const { store, clock } = deps;
  const id = { tenant_id: slot.tenantId, route: slot.route, key: slot.key };
  const owner = randomBytes(12).toString('hex');
  const now = clock.now();
  const claim = await store.idempotency.claim(
    { ...id, fingerprint: '', identity: '', state: 'in_progress', http_status: null, response: null, created_at: now, expires_at: slot.ttlMs === FOREVER ? NEVER_MS : now + slot.ttlMs, owner, lease_until: now + LEASE_MS },
    now,
  );
  if (!claim.claimed) {
    const deadline = Date.now() + WAIT_LIMIT_MS;
    let rec = claim.existing;
    while (rec.state !== 'done') {
      // Its owner stopped renewing (it died mid-work): take the claim over; of several retries, one does.
      if (leaseEnd(rec) <= clock.now() && (await store.idempotency.takeOver(id, rec.owner, owner, clock.now(), LEASE_MS))) return run();
      if (Date.now() > deadline) throw new DomainError(1012, 'the same request is still being processed; retry shortly', { retryAfter: IN_PROGRESS_RETRY_S });
      await new Promise((r) => setTimeout(r, WAIT_POLL_MS));
      const next = await store.idempotency.get(slot.tenantId, slot.route, slot.key);
      if (!next) return once(deps, slot, work, read); // released: the first attempt failed retryably
      rec = next;
    }
    return replay(JSON.parse(rec.response!) as Recorded<unknown>, read);
  }
  return run();

  /** The work as the claim's owner; its outcome is recorded only while the claim is still ours. */
  async function run(): Promise<OnceOutcome<T>> {
    const stopRenewing = keepLease(deps, id, owner);
    try {
      const result = await work();
      await store.idempotency.complete(id, JSON.stringify({ ok: true, result } satisfies Recorded<T>), owner);
      return { result, duplicate: false };
    } catch (err) {
      // Still in progress (1012: the send pipeline still settles a message an earlier attempt left `sending`)
      // is no outcome: the key is freed, and a retry once it settled is answered from that message.
      if (isInProgress(err)) {
        await store.idempotency.release(id, owner);
        throw new DomainError(1012, err.message, { ...err.details, retryAfter: err.details.retryAfter ?? IN_PROGRESS_RETRY_S });
      }
      if (err instanceof DomainError && !err.retryable) {
        await store.idempotency.complete(id, JSON.stringify({ ok: false, code: err.code, message: err.message, details: { ...err.details } } satisfies Recorded<T>), owner);
      } else {
        await store.idempotency.release(id, owner);
      }
      throw err;
    } finally {
      stopRenewing();
    }
  }
}
