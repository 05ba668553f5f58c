/**
 * A write the filesystem blob store gives up (the source failed, the size limit) closes its file
 * once. A write stream on a bare fd closes that fd when the pipeline destroys it, and the store's
 * own handle closed it again: in a busy process the number may by then be another request's file
 * or socket, which the second close would cut.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fsBlobStore, BlobTooLarge } from '../../src/blobs/index.js';

const MiB = 1024 * 1024;

describe('filesystem blob store: a failed write', () => {
  const roots: string[] = [];
  afterEach(() => {
    vi.restoreAllMocks();
    for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
  });

  const store = () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-blobs-fd-'));
    roots.push(root);
    return fsBlobStore(root);
  };

  it('closes its file once, through its handle only, after any write under way (failed source, size limit)', async () => {
    const closes = vi.spyOn(fs, 'close');
    async function* broken() {
      for (let i = 0; i < 8; i++) yield randomBytes(MiB);
      throw new Error('connection reset');
    }
    const blobs = store();
    await expect(blobs.put('att/broken', Readable.from(broken()), 100 * MiB)).rejects.toThrow('connection reset');
    await expect(blobs.put('att/over', Readable.from(Array.from({ length: 8 }, () => randomBytes(MiB))), 3 * MiB)).rejects.toBeInstanceOf(BlobTooLarge);
    // Another file opened right after each failure keeps working (its number may be the freed one).
    const other = path.join(roots[0]!, 'other');
    const fd = fs.openSync(other, 'w');
    await new Promise((r) => setTimeout(r, 50));
    expect(() => fs.writeSync(fd, 'still mine')).not.toThrow();
    fs.closeSync(fd);
    expect(fs.readFileSync(other, 'utf8')).toBe('still mine');
    // The streams never closed a descriptor: the store's handle did, once each.
    expect(closes).not.toHaveBeenCalled();
  });
});
