/**
 * Blob storage behind a small interface (a filesystem implementation here; an
 * S3-compatible one can slot in). Writes stream to a temporary file, fsync,
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
  delete(key: string): Promise<void>;
}

/** Large enough that socket chunks are batched into few write syscalls (fs streams use writev). */
const WRITE_BUFFER = 1024 * 1024;

const SAFE_KEY = /^[a-z0-9_][a-z0-9_./-]*$/i;

export function fsBlobStore(root: string): BlobStore {
  fs.mkdirSync(root, { recursive: true });
  const tmpDir = path.join(root, '.tmp');
  fs.mkdirSync(tmpDir, { recursive: true });

  const pathOf = (key: string) => {
    if (!SAFE_KEY.test(key) || key.includes('..')) throw new Error(`unsafe blob key ${key}`);
    return path.join(root, key);
  };

  async function commit(tmp: string, key: string) {
    const fh = await fs.promises.open(tmp, 'r+');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
    const dest = pathOf(key);
    await fs.promises.mkdir(path.dirname(dest), { recursive: true });
    await fs.promises.rename(tmp, dest);
  }

  return {
    async put(key, source, maxBytes) {
      const tmp = path.join(tmpDir, `${randomBytes(8).toString('hex')}.part`);
      let bytes = 0;
      const counter = new Transform({
        highWaterMark: WRITE_BUFFER,
        transform(chunk: Buffer, _enc, cb) {
          bytes += chunk.length;
          if (bytes > maxBytes) cb(new BlobTooLarge(`more than ${maxBytes} bytes`));
          else cb(null, chunk);
        },
      });
      try {
        await pipeline(source, counter, fs.createWriteStream(tmp, { flags: 'wx', highWaterMark: WRITE_BUFFER }));
        await commit(tmp, key);
        return bytes;
      } catch (err) {
        await fs.promises.rm(tmp, { force: true });
        throw err;
      }
    },
    async putBuffer(key, bytes) {
      const tmp = path.join(tmpDir, `${randomBytes(8).toString('hex')}.part`);
      await fs.promises.writeFile(tmp, bytes, { flag: 'wx' });
      await commit(tmp, key);
    },
    open(key, range) {
      return fs.createReadStream(pathOf(key), range ? { start: range.start, end: range.end } : {});
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
