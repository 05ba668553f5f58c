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
}

/** Large enough that socket chunks are batched into few write syscalls (fs streams use writev). */
const WRITE_BUFFER = 1024 * 1024;

/** During a streamed write, start a background fdatasync each time this much more has arrived. */
const EARLY_FLUSH_BYTES = 8 * 1024 * 1024;

const SAFE_KEY = /^[a-z0-9_][a-z0-9_./-]*$/i;

/** Keys are ours (`att/<id>.<hex>`), never a client's; anything else is a bug, refused before it names a path. */
export function safeBlobKey(key: string): string {
  if (!SAFE_KEY.test(key) || key.includes('..')) throw new Error(`unsafe blob key ${key}`);
  return key;
}

export function fsBlobStore(root: string): BlobStore {
  fs.mkdirSync(root, { recursive: true });
  const tmpDir = path.join(root, '.tmp');
  fs.mkdirSync(tmpDir, { recursive: true });

  const pathOf = (key: string) => path.join(root, safeBlobKey(key));

  /** Moves a fully written, fsynced temporary file to its key. */
  async function place(tmp: string, key: string) {
    const dest = pathOf(key);
    await fs.promises.mkdir(path.dirname(dest), { recursive: true });
    await fs.promises.rename(tmp, dest);
  }

  return {
    async put(key, source, maxBytes) {
      pathOf(key); // an unsafe key fails before anything is written
      const tmp = path.join(tmpDir, `${randomBytes(8).toString('hex')}.part`);
      const fh = await fs.promises.open(tmp, 'wx');
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
      try {
        await pipeline(source, counter, fs.createWriteStream('', { fd: fh.fd, autoClose: false, emitClose: false, highWaterMark: WRITE_BUFFER }));
        await flushing;
        await fh.sync();
        await fh.close();
        await place(tmp, key);
        return bytes;
      } catch (err) {
        await flushing?.catch(() => {});
        await fh.close().catch(() => {});
        await fs.promises.rm(tmp, { force: true });
        throw err;
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
  };
}
