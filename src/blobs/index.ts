/**
 * Blob storage behind a small interface: the filesystem implementation here, an
 * S3-compatible one in `s3.ts` (`open.ts` picks one from the configuration). Writes stream to a temporary file, fsync,
 * then rename, so a reader never sees half a file and a failed write leaves
 * nothing behind.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export class BlobTooLarge extends Error {}

/**
 * The store failed a write (disk full, no permission, the bucket unreachable or refusing), not its
 * source: the writer is told apart from a client that stopped sending (the source's own error,
 * passed through as it was), since only the latter is the client's to fix.
 */
export class BlobStoreFailure extends Error {
  constructor(cause: unknown) {
    super(`the blob store failed the write: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** A stored blob as a listing sees it. */
export interface StoredBlob {
  key: string;
  /** When it was last written (ms since the epoch, wall time: the file's mtime, the object's LastModified). */
  modifiedAt: number;
}

export interface BlobStore {
  /** Streams `source` into `key`; aborts (keeping nothing) past `maxBytes`. Returns the byte count. */
  put(key: string, source: Readable, maxBytes: number): Promise<number>;
  putBuffer(key: string, bytes: Buffer): Promise<void>;
  /** A stream of the blob, or of the inclusive byte range. */
  open(key: string, range?: { start: number; end: number }): Readable;
  size(key: string): Promise<number | undefined>;
  read(key: string): Promise<Buffer>;
  /** Resolves when the blob is gone, also when it was missing already (a retried or racing delete). */
  delete(key: string): Promise<void>;
  /**
   * Every stored blob (not the temporaries of writes in progress), in no promised order, read
   * lazily a page at a time: a caller may stop after any entry (`return()` on the iterator) and
   * pays only for what it read. A blob written or deleted during the walk may or may not appear.
   */
  list(): AsyncIterable<StoredBlob>;
  /**
   * Deletes the temporaries of writes that `isStale` says are stale, given when each was last
   * written (a process killed mid-write leaves its own for good), at most `limit`; how many went.
   * The S3 store has none of its own: a bucket lifecycle rule aborts the multipart uploads of a
   * process that died.
   */
  deleteStaleTemporaries(isStale: (modifiedAt: number) => boolean, limit: number): Promise<number>;
}

/** Large enough that socket chunks are batched into few write syscalls (fs streams use writev). */
const WRITE_BUFFER = 1024 * 1024;
/** File operations for a write stream on a FileHandle's fd: it writes, and never closes the fd. */
const FD_LEFT_OPEN = { write: fs.write, writev: fs.writev, close: (_fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => cb(null) };

/** During a streamed write, start a background fdatasync each time this much more has arrived. */
const EARLY_FLUSH_BYTES = 8 * 1024 * 1024;

const SAFE_KEY = /^[a-z0-9_][a-z0-9_./-]*$/i;

/** Keys are ours (`att/<id>.<hex>`), never a client's; anything else is a bug, refused before it names a path. */
export function safeBlobKey(key: string): string {
  if (!isSafeBlobKey(key)) throw new Error(`unsafe blob key ${key}`);
  return key;
}

/** A listing skips what could not be one of our keys (something else put there): it is not ours to touch. */
export const isSafeBlobKey = (key: string): boolean => SAFE_KEY.test(key) && !key.includes('..');

const isMissing = (err: unknown) => (err as NodeJS.ErrnoException)?.code === 'ENOENT';

export function fsBlobStore(root: string): BlobStore {
  fs.mkdirSync(root, { recursive: true });
  const tmpDir = path.join(root, '.tmp');
  fs.mkdirSync(tmpDir, { recursive: true });

  const pathOf = (key: string) => path.join(root, safeBlobKey(key));

  /** The files under `dir` (depth first, directory order), `.tmp` left out. */
  async function* walk(dir: string): AsyncGenerator<StoredBlob> {
    let handle: fs.Dir;
    try {
      handle = await fs.promises.opendir(dir);
    } catch (err) {
      if (isMissing(err)) return; // removed meanwhile
      throw err;
    }
    // Closed when the loop ends, also when the caller stops early (return() runs the loop's finally).
    for await (const entry of handle) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (full !== tmpDir) yield* walk(full);
        continue;
      }
      if (!entry.isFile()) continue;
      const key = path.relative(root, full).split(path.sep).join('/');
      if (!isSafeBlobKey(key)) continue;
      try {
        yield { key, modifiedAt: (await fs.promises.stat(full)).mtimeMs };
      } catch (err) {
        if (!isMissing(err)) throw err; // deleted since the directory was read
      }
    }
  }

  /** Moves a fully written, fsynced temporary file to its key. */
  async function place(tmp: string, key: string) {
    const dest = pathOf(key);
    await fs.promises.mkdir(path.dirname(dest), { recursive: true });
    await fs.promises.rename(tmp, dest);
  }

  return {
    async put(key, source, maxBytes) {
      pathOf(key); // an unsafe key fails before anything is written
      // Whichever failed first is the cause: a failing side makes the pipeline destroy the other
      // with its error. Listened to at once: the source may fail while the file is being opened.
      let sourceFailedFirst: boolean | undefined = source.errored ? true : undefined;
      source.once('error', () => (sourceFailedFirst ??= true));
      const tmp = path.join(tmpDir, `${randomBytes(8).toString('hex')}.part`);
      const fh = await fs.promises.open(tmp, 'wx').catch((err) => {
        throw new BlobStoreFailure(err);
      });
      let bytes = 0;
      // Flush to disk while bytes still arrive, so the closing fsync has little left
      // to do: on a large upload it would otherwise cost as much as the transfer.
      let flushedAt = 0;
      let flushing: Promise<void> | undefined;
      const counter = new Transform({
        highWaterMark: WRITE_BUFFER,
        transform(chunk: Buffer, _enc, cb) {
          bytes += chunk.length;
          if (bytes > maxBytes) return cb(new BlobTooLarge(`more than ${maxBytes} bytes`));
          if (!flushing && bytes - flushedAt >= EARLY_FLUSH_BYTES) {
            flushedAt = bytes;
            flushing = fh.datasync().finally(() => (flushing = undefined));
          }
          cb(null, chunk);
        },
      });
      // The handle alone closes the file. A stream on a bare fd closes it when destroyed, whatever
      // autoClose says, and the pipeline destroys it on any failure: closed again by the handle,
      // the fd's number may by then belong to another request's file or socket.
      const file = fs.createWriteStream('', { fd: fh.fd, autoClose: false, highWaterMark: WRITE_BUFFER, fs: FD_LEFT_OPEN });
      file.once('error', () => (sourceFailedFirst ??= false));
      try {
        await pipeline(source, counter, file);
        await flushing;
        await fh.sync();
        await fh.close();
        await place(tmp, key);
        return bytes;
      } catch (err) {
        await flushing?.catch(() => {});
        // The pipeline gives up at the first error, maybe while the file stream still has a write
        // under way: its 'close' (the fd left open) comes once that write is done.
        if (!file.closed) await new Promise<void>((resolve) => file.once('close', () => resolve()).destroy());
        await fh.close().catch(() => {});
        await fs.promises.rm(tmp, { force: true });
        // The source's own failure and the size limit stand as they are; anything else is the disk's.
        if (sourceFailedFirst || err instanceof BlobTooLarge) throw err;
        throw new BlobStoreFailure(err);
      }
    },
    async putBuffer(key, bytes) {
      pathOf(key);
      const tmp = path.join(tmpDir, `${randomBytes(8).toString('hex')}.part`);
      const fh = await fs.promises.open(tmp, 'wx');
      try {
        await fh.writeFile(bytes);
        await fh.sync();
      } finally {
        await fh.close();
      }
      await place(tmp, key);
    },
    open(key, range) {
      const stream = fs.createReadStream(pathOf(key), range ? { start: range.start, end: range.end } : {});
      // A stream given up before it opened still reports a missing file: with nobody listening that
      // would crash the process. Readers that listen (pipe, pipeline, for await) still get it.
      stream.on('error', () => {});
      return stream;
    },
    async size(key) {
      try {
        return (await fs.promises.stat(pathOf(key))).size;
      } catch {
        return undefined;
      }
    },
    read: (key) => fs.promises.readFile(pathOf(key)),
    delete: (key) => fs.promises.rm(pathOf(key), { force: true }),
    list: () => walk(root),
    async deleteStaleTemporaries(isStale, limit) {
      // `.tmp` holds only the writes in progress and what killed processes left: a short directory.
      let gone = 0;
      for (const name of await fs.promises.readdir(tmpDir)) {
        if (gone >= limit) break;
        if (!name.endsWith('.part')) continue;
        const file = path.join(tmpDir, name);
        try {
          // mtime moves with every write, so a slow upload still being written is never stale.
          if (!isStale((await fs.promises.stat(file)).mtimeMs)) continue;
          await fs.promises.rm(file);
          gone++;
        } catch (err) {
          if (!isMissing(err)) throw err; // renamed into place or removed by another pass meanwhile
        }
      }
      return gone;
    },
  };
}
