/**
 * The blob store does not keep, for good, what nothing can read: a blob no row names (what a crash
 * between writing a blob and recording its row leaves, on every write path) is deleted once it is
 * a day old, in the filesystem store and in a bucket (a real S3-protocol server), on both
 * databases; the blobs rows name, young blobs (a staging in progress) and anything not ours stay.
 * The store is walked a page per tick, going on where the last tick stopped, and walked again
 * only a day later. A database naming no blob at all deletes nothing (it is not this store's).
 * The filesystem store's temporaries a killed upload left go a day after their last write; an
 * upload being written keeps its own.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { STORE_KINDS } from '../support/stores.js';
import { prepareSandbox } from '../support/messaging.js';
import { startS3, type TestS3 } from '../support/s3.js';
import { housekeeping } from '../../src/domain/housekeeping.js';
import { fsBlobStore, type BlobStore } from '../../src/blobs/index.js';
import { makeWav16Fast, sine } from '../audio/fixtures.js';
import { fileBytes } from '../support/files.js';

const DAY = 24 * 3600_000;
const METRICS_TOKEN = 'blob-sweep-metrics-token-0123';
const hex = (n: number) => randomBytes(n).toString('hex');

let s3: TestS3;
beforeAll(async () => {
  s3 = await startS3();
});
afterAll(async () => s3?.close());

const keysIn = async (blobs: BlobStore) => {
  const out: string[] = [];
  for await (const b of blobs.list()) out.push(b.key);
  return out.sort();
};

/** The store, counting the walks started and the entries read (what listing a bucket costs). */
function counting(blobs: BlobStore) {
  const seen = { walks: 0, read: 0 };
  const store: BlobStore = {
    ...blobs,
    list: () => {
      seen.walks++;
      return (async function* () {
        for await (const b of blobs.list()) {
          seen.read++;
          yield b;
        }
      })();
    },
  };
  return { store, seen };
}

/**
 * Waits (a tick of the kernel's clock at most) until files written from now on are dated after
 * now. The kernel dates files by a coarse clock that lags the one the test clock's moves are dated
 * by, so a blob written a few milliseconds after a move could otherwise be dated before it, and
 * taken for older than it is by the whole move.
 */
async function fileDatesPastNow() {
  const now = Date.now();
  const probe = path.join(os.tmpdir(), `blueline-mtime-probe-${hex(6)}`);
  try {
    for (let i = 0; i < 1000; i++) {
      fs.writeFileSync(probe, '');
      if (Math.floor(fs.statSync(probe).mtimeMs) > now) return;
      await new Promise((r) => setTimeout(r, 1));
    }
  } finally {
    fs.rmSync(probe, { force: true });
  }
}

const CASES = STORE_KINDS.flatMap((db) => (['filesystem', 's3'] as const).map((where) => [db, where] as const));

describe.each(CASES)('blobs no row names (%s, %s)', (kind, where) => {
  let t: TestApp;
  let tenantId: string;
  beforeAll(async () => {
    const bucket = where === 's3' ? { ...s3.env, BLUELINE_BLOB_URL: `${s3.env.BLUELINE_BLOB_URL}-${kind}-${hex(3)}` } : {};
    t = await startTestApp(kind, { ...bucket, METRICS_TOKEN });
    await prepareSandbox(t);
    tenantId = (await t.testStore.store.tenants.getBySlug(t.demo.tenant))!.id;
  });
  afterAll(async () => t?.close());

  const store = () => t.testStore.store;
  const line = () => t.demo.phone_line_ids[0]!;
  const fresh = (blobs: BlobStore = t.blobs, opts: { sweepPage?: number; blobSweep?: boolean } = {}) => housekeeping({ store: store(), clock: t.clock, blobs }, opts);
  const keys = () => keysIn(t.blobs);
  /** Blobs a crash between the blob and its row leaves, one per write path, and what else could be in the store. */
  const strays = async () => {
    await fileDatesPastNow();
    const slot = (await t.api('POST', '/api/v1/attachments', { filename: 'p.png', content_type: 'image/png', size_bytes: 10 })).json();
    const orphans = [
      `att/${slot.attachment_id}.${hex(8)}`, // an upload whose "uploaded" mark never committed
      `in/in_${hex(16)}`, // inbound media whose message was never recorded
      `vn/vn_${hex(16)}.caf`, // a voice note staged without its row
      `_probe/${hex(8)}`, // the bucket check's probe, its delete failed
    ];
    for (const k of orphans) await t.blobs.putBuffer(k, randomBytes(10));
    return orphans;
  };

  it('deletes a blob no row names once a day old; keeps those rows name, young ones, and what is not ours', async () => {
    const bytes = fileBytes('image/png', 32);
    const slot = (await t.api('POST', '/api/v1/attachments', { filename: 'k.png', content_type: 'image/png', size_bytes: bytes.length })).json();
    const put = await t.request({
      method: 'PUT', url: `/api/v1/attachments/${slot.attachment_id}/upload`, payload: bytes,
      headers: { authorization: `Bearer ${t.demo.signing_secret}`, 'content-type': 'image/png' },
    });
    expect(put.statusCode, put.body).toBe(200);
    const inbound = await t.admin('POST', `/admin/v1/lines/${line()}/simulate/inbound`, {
      from: '+14155550171', parts: [{ type: 'media', filename: 'in.png', mime_type: 'image/png', content_base64: randomBytes(40).toString('base64') }],
    });
    expect(inbound.statusCode, inbound.body).toBe(202);
    const received = (await store().database.db.selectFrom('attachments').select('id').where('origin', '=', 'inbound').orderBy('created_at', 'desc').executeTakeFirstOrThrow()).id;
    const wav = makeWav16Fast(44_100, 1, 44_100, sine(440, 44_100)).toString('base64');
    const staged = await t.api('POST', '/api/v1/voice-notes', { audio_base64: wav, mime_type: 'audio/wav', phone_line_id: line() });
    expect(staged.statusCode, staged.body).toBe(200);
    const named = [
      (await store().media.getAttachment(tenantId, slot.attachment_id))!.blob_key,
      (await store().media.getAttachment(tenantId, received))!.blob_key,
      (await store().media.getVoiceNote(tenantId, staged.json().voice_note_id))!.blob_key,
    ];
    const orphans = await strays();
    const notOurs = 'backups/2026-11-01.tar';
    await t.blobs.putBuffer(notOurs, randomBytes(10));
    const before = await keys();
    expect(before).toEqual(expect.arrayContaining([...named, ...orphans, notOurs]));

    // Under a day old, a blob without its row may be a write whose row is still to come.
    await fresh().drain();
    t.clock.advance(DAY - 60_000);
    await fresh().drain();
    expect(await keys()).toEqual(before);

    t.clock.advance(2 * 60_000);
    // BLUELINE_BLOB_SWEEP=0 (a database being restored from an older backup) keeps them all.
    await fresh(t.blobs, { blobSweep: false }).drain();
    expect(await keys()).toEqual(before);
    await t.services.housekeeping.drain();
    expect(await keys()).toEqual(before.filter((k) => !orphans.includes(k)));
    expect((await t.api('GET', `/api/v1/attachments/${slot.attachment_id}/content`)).rawPayload.equals(bytes)).toBe(true);
    expect((await t.api('GET', `/api/v1/attachments/${received}/content`)).statusCode).toBe(200);
    expect((await t.api('GET', `/api/v1/voice-notes/${staged.json().voice_note_id}/audio.ogg`)).statusCode).toBe(200);
    const metrics = await t.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(metrics.body).toMatch(/^blueline_housekeeping_deleted_rows_total\{kind="orphan_blob"\} ([4-9]|\d{2,})$/m);
  });

  it('walks the store a page per tick, goes on where it stopped, and walks it again only a day later', async () => {
    // Everything else due first (the voice note above goes with its file), so only the sweep deletes below.
    t.clock.advance(DAY + 60_000);
    await fresh().drain();
    const orphans = [...(await strays()), ...(await strays())];
    t.clock.advance(DAY + 60_000);
    const total = (await keys()).length;
    expect(total).toBeGreaterThan(8);
    const { store: counted, seen } = counting(t.blobs);
    const h = fresh(counted, { sweepPage: 3 });

    const first = await h.tick();
    expect(seen).toEqual({ walks: 1, read: 3 });
    expect(first.orphan_blob).toBeLessThanOrEqual(3);
    await h.tick();
    expect(seen).toEqual({ walks: 1, read: 6 });
    await h.drain();
    expect(seen).toEqual({ walks: 1, read: total });
    const left = await keys();
    for (const k of orphans) expect(left).not.toContain(k);

    // Passes for most of a day: no walk. A day after the last one began: a new one.
    for (let i = 0; i < 4; i++) {
      t.clock.advance(5 * 3600_000);
      await h.drain();
    }
    expect(seen.walks).toBe(1);
    const later = await strays();
    t.clock.advance(4 * 3600_000);
    await h.drain();
    expect(seen.walks).toBe(2);
    // 4 hours old. (A bucket's LastModified has whole seconds: there a blob written in the second
    // the clock moved cannot be told from one written just before, so this is seen on files.)
    if (where === 'filesystem') expect(await keys()).toEqual(expect.arrayContaining(later));
    t.clock.advance(DAY);
    await h.drain();
    expect(seen.walks).toBe(3);
    const after = await keys();
    for (const k of later) expect(after).not.toContain(k);
  });

  it('is harmless when sweeps in several processes run at once', async () => {
    const orphans = [...(await strays()), ...(await strays())];
    t.clock.advance(DAY + 60_000);
    const before = await keys();
    await Promise.all([fresh(t.blobs, { sweepPage: 2 }).drain(), fresh(t.blobs, { sweepPage: 3 }).drain(), fresh().drain()]);
    expect(await keys()).toEqual(before.filter((k) => !orphans.includes(k)));
  });

  it('goes on past a blob whose delete fails, and deletes it at a later sweep', async () => {
    const [stuck, ...others] = await strays();
    t.clock.advance(DAY + 60_000);
    let refusing = true;
    const flaky: BlobStore = { ...t.blobs, delete: async (k) => (refusing && k === stuck ? Promise.reject(new Error('blob store unavailable')) : t.blobs.delete(k)) };
    const h = fresh(flaky, { sweepPage: 1 });
    await h.drain();
    let left = await keys();
    expect(left).toContain(stuck);
    for (const k of others) expect(left).not.toContain(k);
    refusing = false;
    t.clock.advance(DAY);
    await h.drain();
    left = await keys();
    expect(left).not.toContain(stuck);
  });
});

describe.each(STORE_KINDS)('temporaries a killed upload left (filesystem store, %s)', (kind) => {
  let t: TestApp;
  let root: string;
  let blobs: BlobStore;
  beforeAll(async () => {
    t = await startTestApp(kind);
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-sweep-'));
    blobs = fsBlobStore(root);
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('deletes nothing when the database names no blob at all (not this store\'s database)', async () => {
    // A store full of old blobs, opened with an empty database (a fresh or wrong DATABASE_URL).
    const fullRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-sweep-'));
    const full = fsBlobStore(fullRoot);
    const kept = [`att/att_${hex(16)}.${hex(8)}`, `in/in_${hex(16)}`, `vn/vn_${hex(16)}.caf`];
    for (const k of kept) await full.putBuffer(k, randomBytes(10));
    const empty = await startTestApp(kind);
    try {
      empty.clock.advance(2 * DAY);
      await housekeeping({ store: empty.testStore.store, clock: empty.clock, blobs: full }).drain();
      expect(await keysIn(full)).toEqual(kept.sort());
    } finally {
      await empty.close();
      fs.rmSync(fullRoot, { recursive: true, force: true });
    }
  });

  const parts = () => fs.readdirSync(path.join(root, '.tmp')).sort();
  const killedUpload = (name: string) => fs.writeFileSync(path.join(root, '.tmp', name), randomBytes(1000));

  it("deletes a .part a day after its last write, keeps a fresh one and an upload's being written", async () => {
    const deleted: Record<string, number> = {};
    const h = housekeeping({ store: t.testStore.store, clock: t.clock, blobs, onDeleted: (k, n) => (deleted[k] = (deleted[k] ?? 0) + n) });
    const writing = new PassThrough();
    const upload = blobs.put('att/slow', writing, 10_000);
    writing.write(randomBytes(1000));
    await new Promise((r) => setTimeout(r, 50));
    const [inProgress] = parts();
    expect(inProgress).toMatch(/\.part$/);

    // Left by a process killed two days ago, and by one killed a minute ago.
    killedUpload('0123456789abcdef.part');
    const twoDaysAgo = new Date(Date.now() - 2 * DAY);
    fs.utimesSync(path.join(root, '.tmp', '0123456789abcdef.part'), twoDaysAgo, twoDaysAgo);
    killedUpload('fedcba9876543210.part');
    await h.drain();
    expect(parts()).toEqual([inProgress, 'fedcba9876543210.part'].sort());
    expect(deleted.partial_upload).toBe(1);

    // The upload goes on and completes.
    writing.end(randomBytes(500));
    expect(await upload).toBe(1500);
    expect(await blobs.size('att/slow')).toBe(1500);
    expect(parts()).toEqual(['fedcba9876543210.part']);

    t.clock.advance(DAY - 60_000);
    await h.drain();
    expect(parts()).toEqual(['fedcba9876543210.part']);
    t.clock.advance(2 * 60_000);
    await h.drain();
    expect(parts()).toEqual([]);
    expect(deleted.partial_upload).toBe(2);

    // An upload begun after the clock moved is as young as it is.
    const again = new PassThrough();
    const second = blobs.put('att/after', again, 10_000);
    again.write(randomBytes(100));
    await new Promise((r) => setTimeout(r, 50));
    await h.drain();
    expect(parts()).toHaveLength(1);
    again.end();
    expect(await second).toBe(100);
  });
});
