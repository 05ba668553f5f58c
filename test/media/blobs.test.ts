import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { BlobTooLarge, fsBlobStore, type BlobStore } from '../../src/blobs/index.js';

const MiB = 1024 * 1024;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('filesystem blob store', () => {
  let root: string;
  let blobs: BlobStore;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-blobs-'));
    blobs = fsBlobStore(root);
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const leftovers = () => fs.readdirSync(path.join(root, '.tmp'));

  it('stores a large stream byte for byte while flushing to disk as it arrives', async () => {
    // Odd-sized chunks, past several early-flush points.
    const chunks = Array.from({ length: 45 }, (_, i) => randomBytes(MiB - 1 + (i % 3)));
    const all = Buffer.concat(chunks);
    expect(await blobs.put('att/big', Readable.from(chunks), 100 * MiB)).toBe(all.length);
    expect(sha(await blobs.read('att/big'))).toBe(sha(all));
    expect(leftovers()).toEqual([]);
  });

  it('keeps nothing when a stream runs past its limit after some of it was flushed', async () => {
    const chunks = Array.from({ length: 20 }, () => randomBytes(MiB));
    await expect(blobs.put('att/over', Readable.from(chunks), 12 * MiB)).rejects.toBeInstanceOf(BlobTooLarge);
    expect(await blobs.size('att/over')).toBeUndefined();
    expect(leftovers()).toEqual([]);
  });

  it('keeps nothing when the source fails midway', async () => {
    async function* broken() {
      for (let i = 0; i < 10; i++) yield randomBytes(MiB);
      throw new Error('connection reset');
    }
    await expect(blobs.put('att/broken', Readable.from(broken()), 100 * MiB)).rejects.toThrow('connection reset');
    expect(await blobs.size('att/broken')).toBeUndefined();
    expect(leftovers()).toEqual([]);
  });
});
