/**
 * The blob contract, run against both stores: the filesystem one and the S3 one against a real
 * S3-protocol server on loopback. "Visible" is what a reader could see: for the filesystem every
 * file under the root (temporaries included), for S3 every object listed under the prefix.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { BlobTooLarge, fsBlobStore, type BlobStore } from '../../src/blobs/index.js';
import { s3StoreFromEnv, startS3, type TestS3 } from '../support/s3.js';

const MiB = 1024 * 1024;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

interface Harness {
  blobs: BlobStore;
  visible(): Promise<string[]>;
  cleanup(): Promise<void>;
}

function listFiles(root: string, dir = root): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? listFiles(root, p) : [path.relative(root, p)];
  });
}

let s3: TestS3;
beforeAll(async () => {
  s3 = await startS3();
});
afterAll(async () => s3?.close());

const STORES: Record<string, () => Promise<Harness>> = {
  filesystem: async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-blobs-'));
    return { blobs: fsBlobStore(root), visible: async () => listFiles(root).sort(), cleanup: async () => fs.rmSync(root, { recursive: true, force: true }) };
  },
  s3: async () => {
    // A fresh prefix per test, so each sees only its own objects.
    const env = { ...s3.env, BLUELINE_BLOB_URL: `${s3.env.BLUELINE_BLOB_URL}-${randomBytes(3).toString('hex')}` };
    const opened = await s3StoreFromEnv(env);
    const prefix = env.BLUELINE_BLOB_URL.split('/').slice(3).join('/');
    return {
      blobs: opened.blobs,
      visible: async () => (await s3.visibleKeys(`${prefix}/`)).sort(),
      cleanup: async () => opened.close(),
    };
  },
};

describe.each(Object.keys(STORES))('%s blob store', (kind) => {
  let h: Harness;
  let blobs: BlobStore;
  beforeEach(async () => {
    h = await STORES[kind]!();
    blobs = h.blobs;
  });
  afterEach(async () => h.cleanup());

  it('stores a large stream byte for byte (in parts, odd-sized chunks)', async () => {
    const chunks = Array.from({ length: 23 }, (_, i) => randomBytes(MiB - 1 + (i % 3)));
    const all = Buffer.concat(chunks);
    expect(await blobs.put('att/big', Readable.from(chunks), 100 * MiB)).toBe(all.length);
    expect(await blobs.size('att/big')).toBe(all.length);
    expect(sha(await blobs.read('att/big'))).toBe(sha(all));
    expect(await h.visible()).toEqual(['att/big']);
  });

  it('stores a small stream and a buffer, and serves whole and inclusive byte ranges', async () => {
    const bytes = randomBytes(3000);
    expect(await blobs.put('att/small', Readable.from([bytes.subarray(0, 1000), bytes.subarray(1000)]), 3000)).toBe(3000);
    await blobs.putBuffer('vn/note.caf', bytes);
    for (const key of ['att/small', 'vn/note.caf']) {
      expect(Buffer.concat(await blobs.open(key).toArray()).equals(bytes)).toBe(true);
      expect(Buffer.concat(await blobs.open(key, { start: 100, end: 199 }).toArray()).equals(bytes.subarray(100, 200))).toBe(true);
      expect(Buffer.concat(await blobs.open(key, { start: 2999, end: 2999 }).toArray()).equals(bytes.subarray(2999))).toBe(true);
    }
    expect(await h.visible()).toEqual(['att/small', 'vn/note.caf']);
  });

  it('keeps nothing when a stream runs past its limit after some of it was written', async () => {
    const chunks = Array.from({ length: 20 }, () => randomBytes(MiB));
    await expect(blobs.put('att/over', Readable.from(chunks), 12 * MiB)).rejects.toBeInstanceOf(BlobTooLarge);
    expect(await blobs.size('att/over')).toBeUndefined();
    expect(await h.visible()).toEqual([]);
  });

  it('keeps nothing when the source fails midway', async () => {
    async function* broken() {
      for (let i = 0; i < 10; i++) yield randomBytes(MiB);
      throw new Error('connection reset');
    }
    await expect(blobs.put('att/broken', Readable.from(broken()), 100 * MiB)).rejects.toThrow('connection reset');
    expect(await blobs.size('att/broken')).toBeUndefined();
    expect(await h.visible()).toEqual([]);
  });

  it('answers a missing blob as missing, deletes idempotently, and refuses unsafe keys', async () => {
    expect(await blobs.size('att/none')).toBeUndefined();
    await expect(text(blobs.open('att/none'))).rejects.toThrow();
    await blobs.putBuffer('in/x', Buffer.from('hello'));
    await blobs.delete('in/x');
    await blobs.delete('in/x');
    expect(await blobs.size('in/x')).toBeUndefined();
    expect(await h.visible()).toEqual([]);
    expect(() => blobs.open('../etc/passwd')).toThrow(/unsafe/);
    await expect(blobs.putBuffer('/abs', Buffer.from('x'))).rejects.toThrow(/unsafe/);
  });

  it('lists every blob with when it was last written, over several pages; a write in progress is not listed', async () => {
    // Past one listing page (1,000 keys) in a bucket; a few in a directory tree.
    const keys = kind === 's3' ? Array.from({ length: 1003 }, (_, i) => `in/k${String(i).padStart(4, '0')}`) : ['att/a.1', 'in/b', 'vn/c.caf', 'in/d'];
    const writing = new PassThrough();
    const inProgress = blobs.put('att/slow', writing, 10 * MiB);
    writing.write(randomBytes(1000));
    const startedAt = Date.now();
    for (let i = 0; i < keys.length; i += 50) await Promise.all(keys.slice(i, i + 50).map((k) => blobs.putBuffer(k, Buffer.from(k))));
    const listed = [];
    for await (const b of blobs.list()) listed.push(b);
    expect(listed.map((b) => b.key).sort()).toEqual([...keys].sort());
    for (const b of listed) {
      // S3's LastModified has whole seconds.
      expect(b.modifiedAt).toBeGreaterThanOrEqual(Math.floor(startedAt / 1000) * 1000);
      expect(b.modifiedAt).toBeLessThanOrEqual(Date.now());
    }
    writing.end(randomBytes(1000));
    expect(await inProgress).toBe(2000);
    const after = [];
    for await (const b of blobs.list()) after.push(b.key);
    expect(after.sort()).toEqual([...keys, 'att/slow'].sort());
  });

  it.runIf(kind === 's3')('is listed only with the right credentials (the stand-in checks a listing\'s signature)', async () => {
    await blobs.putBuffer('att/1', Buffer.from('1'));
    const wrong = await s3StoreFromEnv({ ...s3.env, AWS_SECRET_ACCESS_KEY: 'not-the-secret' });
    const listing = (async () => {
      for await (const b of wrong.blobs.list()) return b;
    })();
    await expect(listing).rejects.toMatchObject({ name: 'SignatureDoesNotMatch' });
    wrong.close();
  });

  it('lets a listing stop after a few entries', async () => {
    for (const k of ['att/1', 'att/2', 'att/3', 'in/4']) await blobs.putBuffer(k, Buffer.from(k));
    const it = blobs.list()[Symbol.asyncIterator]();
    const first = await it.next();
    expect(first.done).toBe(false);
    await it.return?.();
    expect(await it.next()).toEqual({ done: true, value: undefined });
    await blobs.delete('att/1');
    expect(await h.visible()).toEqual(['att/2', 'att/3', 'in/4']);
  });

  it('lets a reader stop early without reading the rest', async () => {
    await blobs.putBuffer('att/long', randomBytes(4 * MiB));
    const stream = blobs.open('att/long');
    for await (const chunk of stream) {
      expect(chunk.length).toBeGreaterThan(0);
      break; // destroys the stream
    }
    expect(stream.destroyed).toBe(true);
    // Given up before its first read, and for a missing blob: no error escapes.
    blobs.open('att/long').destroy();
    blobs.open('att/none').destroy();
    await new Promise((r) => setTimeout(r, 100));
    // The store still answers afterwards (an abandoned download left nothing stuck).
    expect(await blobs.size('att/long')).toBe(4 * MiB);
  });
});
