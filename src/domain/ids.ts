/** Identifier forms from DESIGN.md §4, made in one place. */
import { randomBytes, randomFillSync, randomUUID } from 'node:crypto';

export const newUuid = (): string => randomUUID();

export const randomHex = (bytes: number): string => randomBytes(bytes).toString('hex');

// Trace ids: a random per-process prefix and a counter, unique across processes
// without drawing entropy on every request.
const tracePrefix = randomHex(6);
let traceCounter = 0;
function nextTraceId(): string {
  traceCounter = (traceCounter + 1) % 0x1000000000000;
  return `tr_${tracePrefix}${traceCounter.toString(16).padStart(12, '0')}`;
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

// Entropy drawn 4 KiB at a time: one draw per id cost ~10 µs, a good part of an inbound event.
const pool = Buffer.alloc(4096);
let poolAt = pool.length;
function randomFromPool(n: number): number {
  if (poolAt + n > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const at = poolAt;
  poolAt += n;
  return at;
}

/**
 * ULID-like: 10 chars of millisecond time then 16 chars that start random.
 * Ids made in the same millisecond count up from the first one's random part
 * (ULID's monotonic mode), so a process's ids sort in the order it made them:
 * two messages sent in one millisecond list newest first, and an event recorded
 * just after another never sorts before it (cursor pagination skips nothing).
 *
 * The count is kept per millisecond for the RECENT_MS most recently used ones, not
 * only the last: ids for different times interleave (an inbound message's id carries the
 * provider's time, its event's the service clock's), and restarting from a random
 * point on every switch would let the second event of a millisecond sort first.
 */
const RECENT_MS = 256;
const tails = new Map<number, Uint8Array>();

/** The first 10 characters of a time-sortable id: its millisecond. */
function timePart(ms: number): string {
  let t = ms;
  let time = '';
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  return time;
}

export function timeSortableId(nowMs: number): string {
  const time = timePart(nowMs);
  let tail = tails.get(nowMs);
  if (tail) {
    tails.delete(nowMs); // most recently used goes last; the least recently used is dropped first
    tails.set(nowMs, tail);
    // +1 with carry; 32^16 ids in one millisecond cannot happen.
    for (let i = tail.length - 1; i >= 0 && ++tail[i]! === 32; i--) tail[i] = 0;
  } else {
    if (tails.size >= RECENT_MS) tails.delete(tails.keys().next().value!);
    tail = new Uint8Array(16);
    tails.set(nowMs, tail);
    const at = randomFromPool(tail.length);
    // The top bit stays clear, leaving room to count up without wrapping.
    for (let i = 0; i < tail.length; i++) tail[i] = pool[at + i]! % (i === 0 ? 16 : 32);
  }
  let rest = '';
  for (let i = 0; i < tail.length; i++) rest += CROCKFORD[tail[i]!];
  return time + rest;
}

/** An event's id: its created_at, time-sortable. */
export const newEventId = (createdAtMs: number): string => `evt_${timeSortableId(createdAtMs)}`;
/** Sorts after the ids of every event created before `ms`, and before those created at or after it. */
export const eventIdFloor = (ms: number): string => `evt_${timePart(ms)}`;

export const ids = {
  account: () => `acct_${randomHex(12)}`,
  tenant: () => `ten_${randomHex(12)}`,
  secret: () => `sec_${randomHex(12)}`,
  /** An API signing secret: 32 random bytes, url-safe. */
  signingSecret: () => `bl_sk_${randomBytes(32).toString('base64url')}`,
  trace: nextTraceId,
};
