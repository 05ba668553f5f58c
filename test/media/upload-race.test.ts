/**
 * Two PUTs racing for one upload slot, on each database: the upload told 200
 * is the one whose bytes are stored, and the loser (409/1012) leaves nothing.
 * The domain service runs over a real store and a real blob store; the only
 * addition is a note of when each upload starts writing, so the test can hold
 * both uploads mid-stream and pick which finishes first.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fsBlobStore, type BlobStore } from '../../src/blobs/index.js';
import { testClock } from '../../src/clock.js';
import { attachmentsService, type AttachmentsService } from '../../src/domain/media/attachments.js';
import { DomainError } from '../../src/errors/registry.js';
import { STORE_KINDS, createTestStore, type TestStore } from '../support/stores.js';
import { fileBytes } from '../support/files.js';

const TENANT = 'ten_race';

const readAll = async (stream: Readable) => {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
};

describe.each(STORE_KINDS)('racing uploads to one slot on %s', (kind) => {
  let ts: TestStore;
  let root: string;
  let attachments: AttachmentsService;
  /** Resolves each waiter once that many uploads have begun writing their bytes. */
  let writesStarted = 0;
  const waiters: { count: number; resolve: () => void }[] = [];
  const started = (count: number) => new Promise<void>((resolve) => waiters.push({ count, resolve }));

  beforeAll(async () => {
    ts = await createTestStore(kind);
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-race-'));
    const real = fsBlobStore(root);
    const blobs: BlobStore = {
      ...real,
      put(key, source, maxBytes) {
        writesStarted++;
        for (const w of waiters.filter((w) => w.count <= writesStarted)) w.resolve();
        return real.put(key, source, maxBytes);
      },
    };
    attachments = attachmentsService({ store: ts.store, clock: testClock(), blobs });
  });
  afterAll(async () => {
    await ts.cleanup();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const storedFiles = () => (fs.existsSync(path.join(root, 'att')) ? fs.readdirSync(path.join(root, 'att')) : []);

  /** Starts an upload whose body arrives only as the test writes it. */
  function startUpload(id: string, size: number) {
    const body = new PassThrough();
    const result = attachments.upload(TENANT, id, { contentType: 'image/png', contentLength: String(size) }, body).then(
      (a) => ({ ok: true as const, attachment: a }),
      (err: unknown) => ({ ok: false as const, err }),
    );
    return { body, result };
  }

  for (const winner of ['first', 'second'] as const) {
    it(`stores exactly the bytes of the upload told 200 when the ${winner} to start finishes first`, async () => {
      const size = 256 * 1024;
      const { attachment: slot } = await attachments.createSlot(TENANT, { filename: 'race.png', contentType: 'image/png', sizeBytes: size });
      const filesBefore = storedFiles().length;
      const bytes = { first: fileBytes('image/png', size), second: fileBytes('image/png', size) };
      const before = writesStarted;
      const uploads = { first: startUpload(slot.id, size), second: startUpload(slot.id, size) };
      // Both uploads are past every check and streaming before either one finishes.
      uploads.first.body.write(bytes.first.subarray(0, size / 2));
      uploads.second.body.write(bytes.second.subarray(0, size / 2));
      await started(before + 2);

      const loser = winner === 'first' ? 'second' : 'first';
      uploads[winner].body.end(bytes[winner].subarray(size / 2));
      const won = await uploads[winner].result;
      expect(won.ok).toBe(true);
      uploads[loser].body.end(bytes[loser].subarray(size / 2));
      const lost = await uploads[loser].result;
      expect(lost.ok).toBe(false);
      expect(lost.ok === false && lost.err instanceof DomainError && lost.err.code).toBe(1012);

      const content = await attachments.content(TENANT, slot.id);
      expect(content.size).toBe(size);
      expect((await readAll(content.open())).equals(bytes[winner])).toBe(true);
      // The loser kept nothing: one stored file for the slot.
      expect(storedFiles().length - filesBefore).toBe(1);
    });
  }

  it('records exactly one of two concurrent completions, with that one\'s blob key', async () => {
    const { attachment: slot } = await attachments.createSlot(TENANT, { filename: 'race.png', contentType: 'image/png', sizeBytes: 10 });
    const now = Date.now();
    const results = await Promise.all(
      ['att/a-key', 'att/b-key'].map((blobKey) => ts.store.media.markUploaded(slot.id, { blobKey, size: 10, at: now, expiresAt: now + 1_000 })),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    const row = await ts.store.media.getAttachment(TENANT, slot.id);
    expect(row!.blob_key).toBe(results[0] ? 'att/a-key' : 'att/b-key');
  });
});
