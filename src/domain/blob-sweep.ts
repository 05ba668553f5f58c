/**
 * The blob sweep: deletes stored blobs that no row names, so the blob store does not grow for good
 * with files nothing can read. Every write path stores its blob BEFORE the row that names it
 * commits, so a crash, a failed insert or a lost race in between leaves a blob without a row:
 * - an upload (`att/<id>.<hex>`) whose "uploaded" mark never committed (its slot row keeps its
 *   placeholder key and is deleted later as never uploaded to);
 * - inbound media (`in/<id>`) whose message was not recorded (a crash, a failed transaction retried
 *   by intake under new ids, the same message reported twice at once, its line deleted meanwhile);
 * - a staged voice note (`vn/<id>.caf`) whose row was never inserted;
 * - the S3 store's start-up probe (`_probe/<hex>`) whose delete failed.
 *
 * Why deleting is safe without a lock across the store and the database: a blob is deleted only
 * when it was last written more than ORPHAN_BLOB_GRACE_MS ago AND no row named it when looked up.
 * A write path inserts the row naming its blob seconds (at most minutes: an upload's last byte,
 * one transaction) after writing it, and keys are fresh random names never reused, so a blob a
 * day old that no row names will never be named by one: the check cannot race a write still
 * under way. Sweeps in several processes at once delete the same orphans twice (deleting a
 * missing blob succeeds in both stores), which is harmless.
 *
 * Age is the blob's modification time (wall time) seen on the service clock (`clock.fromWall`): in
 * production the same thing; with the test clock, moving it forward a day ages by a day the blobs
 * written before, not those written after (a test, or a demo server, writing after a move).
 *
 * Cost: the store is walked a page at a time (one listing request, one lookup query per page),
 * the walk kept in memory so the next tick goes on where the last stopped, and a new walk starts
 * at most once per BLOB_SWEEP_INTERVAL_MS per process (and at its first pass), never every pass.
 */
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { BlobStore, StoredBlob } from '../blobs/index.js';
import type { HousekeepingRepo } from '../store/housekeeping.js';

const DAY = 24 * 3600_000;
/** A blob no row names is deleted once it was last written this long ago (see above). */
export const ORPHAN_BLOB_GRACE_MS = DAY;
/** A new walk of the whole store starts at most this often. */
export const BLOB_SWEEP_INTERVAL_MS = DAY;
/** Keys per tick: one S3 listing page, one lookup query. */
export const BLOB_SWEEP_PAGE = 1000;
/**
 * The key families the service writes; anything else under the store's root or prefix (a bucket
 * shared with other data) is never deleted. A new family of keys must be added here, and the
 * table naming it to `referencedBlobKeys`, before the sweep may delete it.
 */
export const SWEPT_KEY_PREFIXES = ['att/', 'in/', 'vn/', '_probe/'] as const;

export function blobSweep(deps: { repo: HousekeepingRepo; clock: Clock; blobs: BlobStore; logger?: Logger }, opts: { page?: number } = {}) {
  const page = opts.page ?? BLOB_SWEEP_PAGE;
  let walk: AsyncIterator<StoredBlob> | undefined;
  let nextWalkAt = -Infinity;

  /** Ends the walk in progress (closing the directory it reads); the next starts as scheduled. */
  async function endWalk() {
    const w = walk;
    walk = undefined;
    await w?.return?.();
  }

  /** Up to a page of the walk in progress, starting one when due. */
  async function nextPage(now: number): Promise<StoredBlob[]> {
    if (!walk) {
      if (now < nextWalkAt) return [];
      walk = deps.blobs.list()[Symbol.asyncIterator]();
      nextWalkAt = now + BLOB_SWEEP_INTERVAL_MS;
    }
    const out: StoredBlob[] = [];
    try {
      while (out.length < page) {
        const r = await walk.next();
        if (r.done) {
          walk = undefined;
          break;
        }
        out.push(r.value);
      }
    } catch (err) {
      // A listing that fails (the bucket unreachable, no s3:ListBucket) ends this walk; the next starts as scheduled.
      walk = undefined;
      deps.logger?.warn({ err }, 'housekeeping could not list the blob store; the unreferenced-blob sweep tries again in a day');
    }
    return out;
  }

  return {
    /** One page of the sweep: how many blobs it deleted, and whether the walk goes on (tick again at once). */
    async step(now: number): Promise<{ deleted: number; more: boolean }> {
      const blobs = await nextPage(now);
      const old = blobs.filter((b) => deps.clock.fromWall(b.modifiedAt) <= now - ORPHAN_BLOB_GRACE_MS && SWEPT_KEY_PREFIXES.some((p) => b.key.startsWith(p)));
      const named = await deps.repo.referencedBlobKeys(old.map((b) => b.key));
      // A database that names no blob at all, beside a store holding old ones, is not this store's
      // database (a fresh or wrong DATABASE_URL, a restore under way): deleting would empty the store.
      if (old.length > 0 && named.size === 0 && !(await deps.repo.namesAnyBlob())) {
        deps.logger?.warn({ blobs: old.length }, 'housekeeping found old blobs but the database names none; the unreferenced-blob sweep deletes nothing (is DATABASE_URL the right database for this blob store?)');
        await endWalk();
        return { deleted: 0, more: false };
      }
      let deleted = 0;
      const failed: { key: string; err: unknown }[] = [];
      for (const b of old) {
        if (named.has(b.key)) continue;
        try {
          await deps.blobs.delete(b.key);
          deleted++;
        } catch (err) {
          failed.push({ key: b.key, err });
        }
      }
      if (failed.length > 0) {
        deps.logger?.warn({ err: failed[0]!.err, blob_key: failed[0]!.key, failed: failed.length }, 'housekeeping could not delete blobs no row names; the next sweep tries again');
      }
      return { deleted, more: walk !== undefined };
    },
    stop: endWalk,
  };
}

export type BlobSweep = ReturnType<typeof blobSweep>;
