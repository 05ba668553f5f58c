/**
 * Housekeeping: deletes rows that nothing can read or use any more once past their expiry, so an
 * operator's database does not grow for good with one row per keyed request:
 * - idempotency records past their lifetime (a repeat of the key would start afresh anyway),
 *   except a claim in progress under a live lease; records kept for good (HubSpot workflow
 *   callbacks) never expire;
 * - attachment upload slots never uploaded to, a day after their slot expired (an upload begun
 *   just before the expiry may still be streaming); they hold no file;
 * - staged voice notes never used, with their files, a day after they expired, unless a message
 *   names them (a failed send gives its note back, yet the console still plays its audio);
 * - HubSpot install states never used, and console sessions, past expiry;
 * - sandbox lines' device-log entries older than DEVICE_LOG_KEPT_MS (the files they point at are
 *   gone by then too), except those a pending lookup (a send or group creation the line has not
 *   answered yet) may still read;
 * - the FILES of attachments (uploads and inbound media) a day after their retention ended: the
 *   row stays, so its answers (5001 "has expired", message parts naming it) stay the same;
 * - the blob store's own leftovers: temporaries of writes a killed process left (`partial_upload`,
 *   a day after their last write) and blobs no row names (`orphan_blob`, blob-sweep.ts).
 * Kept: attachment rows, used voice notes.
 *
 * Each tick deletes at most one batch per kind, each batch one short statement; the loop ticks
 * again at once while a batch came back full, else waits for the next pass. Passes in several
 * processes at once are harmless: every delete checks its condition again in the statement.
 */
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Store } from '../store/index.js';
import type { BlobStore } from '../blobs/index.js';
import { claimLoop } from '../jobs/claim-loop.js';
import { blobSweep } from './blob-sweep.js';
import { deviceLogIdPrefix, LOOKUP_SLACK_MS } from '../drivers/simulator/index.js';

/** Every kind of row (or file) the housekeeping pass deletes, as it reports them. */
export const HOUSEKEPT_KINDS = ['idempotency_record', 'upload_slot', 'voice_note', 'attachment_file', 'hubspot_install_state', 'console_session', 'device_log_entry', 'partial_upload', 'orphan_blob'] as const;
export type HousekeptKind = (typeof HOUSEKEPT_KINDS)[number];

/** Rows per delete statement: small enough that one never holds the SQLite writer or PostgreSQL locks for long. */
export const HOUSEKEEPING_BATCH = 500;
/** Between passes (wall time): expired rows are harmless for a while, only their number matters. */
export const HOUSEKEEPING_INTERVAL_MS = 10 * 60_000;
/** An upload slot is deleted this long after it expired, never while an upload begun in time may still run. */
export const UPLOAD_SLOT_GRACE_MS = 24 * 3600_000;
/** Likewise a staged voice note: a send that resolved it just in time may still be recording its message. */
export const VOICE_NOTE_GRACE_MS = 24 * 3600_000;
/**
 * An attachment's file is deleted this long after its retention ended: a send that resolved it just
 * before may still be streaming it to a line (the file is opened after the check).
 */
export const ATTACHMENT_FILE_GRACE_MS = 24 * 3600_000;
/**
 * A sandbox line's device log keeps what its device was asked to do for this long: as long as an
 * attachment's retention, so an entry's `content_path` answers for as long as the entry is there.
 */
export const DEVICE_LOG_KEPT_MS = 30 * 24 * 3600_000;
/** A write's temporary untouched this long belongs to a process that died (an upload takes minutes at most). */
export const PARTIAL_UPLOAD_GRACE_MS = 24 * 3600_000;

export function housekeeping(
  deps: { store: Store; clock: Clock; blobs: BlobStore; logger?: Logger; onDeleted?: (kind: HousekeptKind, count: number) => void },
  opts: { batch?: number; intervalMs?: number; sweepPage?: number; blobSweep?: boolean } = {},
) {
  const { store, clock } = deps;
  const batch = opts.batch ?? HOUSEKEEPING_BATCH;
  const repo = store.housekeeping;
  const sweep = blobSweep({ repo, clock, blobs: deps.blobs, logger: deps.logger }, { page: opts.sweepPage });
  let sweepGoesOn = false;
  // Where the next batch of attachment files starts: after the last row tried. A file whose delete
  // keeps failing is passed over, so the rows after it are reached; back at the end, the walk
  // starts again from the oldest and tries the failed ones anew.
  let attachmentsAfter: { expires_at: number; id: string } | undefined;
  const kinds: Record<HousekeptKind, (now: number) => Promise<number>> = {
    idempotency_record: (now) => repo.deleteExpiredIdempotency(now, batch),
    upload_slot: (now) => repo.deleteExpiredUploadSlots(now - UPLOAD_SLOT_GRACE_MS, batch),
    voice_note: async (now) => {
      const before = now - VOICE_NOTE_GRACE_MS;
      const notes = await repo.expiredUnusedVoiceNotes(before, VOICE_NOTE_GRACE_MS, batch);
      // The file first: a row left without it answers 5001 as a deleted one would; a file left without its row would stay for good.
      for (const n of notes) await deps.blobs.delete(n.blob_key);
      return repo.deleteUnusedVoiceNotes(
        notes.map((n) => n.id),
        before,
      );
    },
    attachment_file: async (now) => {
      const before = now - ATTACHMENT_FILE_GRACE_MS;
      const due = await repo.expiredAttachmentFiles(before, batch, attachmentsAfter);
      attachmentsAfter = due.length < batch ? undefined : due[due.length - 1];
      // The file first, then the mark: a crash between the two leaves an unmarked row whose file
      // is gone, and the next pass deletes it again (a missing file or object deletes without
      // error in both stores) and marks it. Marking first would, on a crash, leave a file no pass
      // ever looks at again. A delete that fails leaves its row unmarked, so a later batch retries
      // it; the others in the batch, and the batches after, go on. Two passes at once delete the
      // same files twice (harmless) and mark each row once.
      const gone: string[] = [];
      const failed: { id: string; err: unknown }[] = [];
      for (const a of due) {
        try {
          await deps.blobs.delete(a.blob_key);
          gone.push(a.id);
        } catch (err) {
          failed.push({ id: a.id, err });
        }
      }
      // One line per batch, not per file: a store refusing every delete would otherwise log hundreds each pass.
      if (failed.length > 0) {
        deps.logger?.warn({ err: failed[0]!.err, attachment_id: failed[0]!.id, failed: failed.length }, "housekeeping could not delete expired attachments' files; the next pass tries again");
      }
      return repo.markAttachmentFilesDeleted(gone, before, now);
    },
    hubspot_install_state: (now) => repo.deleteExpiredOAuthStates(now, batch),
    console_session: (now) => repo.deleteExpiredConsoleSessions(now, batch),
    device_log_entry: async (now) => {
      // Line by line (their logs are keyed by line): at most a batch in all, the oldest lines' first.
      const before = now - DEVICE_LOG_KEPT_MS;
      let count = 0;
      for (const line of await store.lines.list()) {
        if (count >= batch) break;
        count += await repo.deleteOldDeviceLog(line.id, before, deviceLogIdPrefix(before), LOOKUP_SLACK_MS, batch - count);
      }
      return count;
    },
    partial_upload: async (now) => {
      try {
        return await deps.blobs.deleteStaleTemporaries((modifiedAt) => clock.fromWall(modifiedAt) <= now - PARTIAL_UPLOAD_GRACE_MS, batch);
      } catch (err) {
        deps.logger?.warn({ err }, "housekeeping could not delete the blob store's stale temporaries; the next pass tries again");
        return 0;
      }
    },
    orphan_blob: async (now) => {
      if (opts.blobSweep === false) return 0;
      const { deleted, more } = await sweep.step(now);
      sweepGoesOn = more;
      return deleted;
    },
  };

  /** One batch of each kind; what was deleted, by kind. */
  async function tick(): Promise<Record<HousekeptKind, number>> {
    const now = clock.now();
    const counts = {} as Record<HousekeptKind, number>;
    for (const kind of Object.keys(kinds) as HousekeptKind[]) {
      counts[kind] = await kinds[kind](now);
      if (counts[kind] > 0) deps.onDeleted?.(kind, counts[kind]);
    }
    return counts;
  }

  const loop = claimLoop({
    // The fullest batch: a full one (or a sweep with more pages to walk) means more may be
    // waiting, so the loop goes again at once.
    tick: async () => {
      const counts = await tick();
      return sweepGoesOn ? batch : Math.max(...Object.values(counts));
    },
    nextDueAt: async () => null,
    batch,
    pollMs: opts.intervalMs ?? HOUSEKEEPING_INTERVAL_MS,
    label: 'housekeeping',
    logger: deps.logger,
  });

  return {
    tick,
    /** Batches until nothing is left to delete (tests, or a pass run by hand). */
    drain: () => loop.drain(),
    start: () => loop.start(),
    stop: async () => {
      await loop.stop();
      await sweep.stop();
    },
  };
}

export type Housekeeping = ReturnType<typeof housekeeping>;
