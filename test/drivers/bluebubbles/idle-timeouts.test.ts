/**
 * A file's body to or from BlueBubbles has an idle limit, not a total one (file-limits.ts): it
 * fails when no bytes moved for the line's timeout_ms, so a large file over a slow link goes
 * through; an upload must still average the minimum rate. Each body here takes longer than the
 * old total limit (twice timeout_ms), with gaps far shorter than timeout_ms, or stalls after that.
 * Downloads through the domain (recorded or not): inbound-streaming.test.ts.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bluebubblesDriver, type BlueBubblesLineDriver } from '../../../src/drivers/bluebubbles/index.js';
import { BlueBubblesClient, BlueBubblesError } from '../../../src/drivers/bluebubbles/client.js';
import { parseConfig } from '../../../src/drivers/bluebubbles/config.js';
import { FILE_TRANSFER_CAP_MS, MIN_FILE_BYTES_PER_SEC, uploadBodyMs } from '../../../src/drivers/bluebubbles/file-limits.js';
import type { OutboundFile } from '../../../src/drivers/types.js';
import { context, failure } from './helpers.js';
import { StandIn } from './standin.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const TIMEOUT_MS = 300;
const to = { kind: 'direct' as const, handle: '+14155550197' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A file read in `pieces`, one every `everyMs` (a slow disk or bucket), then `rest` bytes as fast as they are taken. */
function slowFile(pieces: Buffer[], everyMs: number, rest = 0): OutboundFile & { taken: () => number; lastHandedAt: () => number } {
  let taken = 0;
  let lastHandedAt = 0;
  const size = pieces.reduce((n, p) => n + p.length, 0) + rest;
  const filler = Buffer.alloc(64 * KiB);
  return {
    attachmentId: 'att_slow', filename: 'slow.mov', mimeType: 'video/quicktime', sizeBytes: size,
    taken: () => taken,
    lastHandedAt: () => lastHandedAt,
    open: () =>
      Readable.from(
        (async function* () {
          for (const [i, p] of pieces.entries()) {
            if (i > 0) await sleep(everyMs);
            taken += p.length;
            lastHandedAt = Date.now();
            yield p;
          }
          for (let left = rest; left > 0; left -= filler.length) {
            lastHandedAt = Date.now();
            yield filler.subarray(0, Math.min(left, filler.length));
          }
        })(),
      ),
  };
}

describe('BlueBubbles file bodies: idle limits', () => {
  let bb: StandIn;
  let driver: BlueBubblesLineDriver;

  beforeAll(async () => {
    bb = await new StandIn().start();
    bb.directChat(to.handle);
  });
  afterAll(async () => bb.stop());
  beforeEach(async () => {
    bb.requests = [];
    bb.stalledAt = undefined;
    driver = bluebubblesDriver(context(bb.config({ timeout_ms: TIMEOUT_MS })), { probeOnStart: false });
    await driver.refresh();
  });

  const uploads = () => bb.requestsTo('POST', '/api/v1/message/attachment');
  const sentToThem = () => [...bb.messages.values()].filter((m) => m.isFromMe && m.chatGuid === `iMessage;-;${to.handle}`).length;

  it('sends an upload whose body trickles in for longer than twice timeout_ms, never idle that long', async () => {
    const pieces = Array.from({ length: 10 }, () => randomBytes(8 * KiB));
    const started = Date.now();
    const { guids } = await driver.sendMedia(to, [slowFile(pieces, 100)], { grouped: false });
    expect(Date.now() - started).toBeGreaterThan(2 * TIMEOUT_MS);
    expect(uploads()).toHaveLength(1);
    expect(uploads()[0]!.files!.attachment).toMatchObject({ size: 80 * KiB, sha256: sha256(Buffer.concat(pieces)) });
    expect(bb.messages.get(guids[0]!)).toBeDefined();
  });

  it('fails an upload the Mac stops taking mid-body once nothing moved for timeout_ms: ambiguous (3002), after the stall, not before; the Mac sends nothing', async () => {
    // Moving for ~700 ms (past the old total limit), then the rest at once, which the Mac stops taking.
    const file = slowFile(Array.from({ length: 8 }, () => randomBytes(8 * KiB)), 100, 64 * MiB);
    bb.inject('POST /api/v1/message/attachment', { takeBodyUpTo: 96 * KiB });
    const before = sentToThem();
    const f = await failure(driver.sendMedia(to, [file], { grouped: false }));
    const failedAt = Date.now();
    expect(f.kind).toBe('ambiguous');
    expect(f.message).toContain(`took no bytes of POST /api/v1/message/attachment for ${TIMEOUT_MS} ms`);
    expect(f.message).not.toContain(bb.password);
    expect(bb.stalledAt, 'the Mac took its bytes until it stalled').toBeDefined();
    expect(file.taken()).toBe(64 * KiB);
    // Not before: timeout_ms after the last bytes moved. Measured from the file's last chunk handed
    // on (never later than the upload took it), not from the stand-in's stall: the socket takes
    // bytes into its buffers before the stand-in, on the same busy event loop, reads up to its stall.
    expect(failedAt).toBeGreaterThan(bb.stalledAt!);
    expect(failedAt - file.lastHandedAt()).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(uploads()).toEqual([]);
    expect(sentToThem()).toBe(before);
  });

  it('fails an upload that keeps moving but below the minimum rate, within its time at that rate (30 minutes at most)', async () => {
    expect(uploadBodyMs(30_000, MiB)).toBe(30_000 + 32_000);
    expect(uploadBodyMs(30_000, 100 * MiB)).toBe(FILE_TRANSFER_CAP_MS);
    // 16 KiB at ~10 KiB/s: allowed timeout_ms + 16 KiB / 32 KiB/s = 800 ms, though never idle for 300.
    const file = slowFile(Array.from({ length: 16 }, () => randomBytes(KiB)), 100);
    const allowed = uploadBodyMs(TIMEOUT_MS, file.sizeBytes);
    expect(allowed).toBe(TIMEOUT_MS + Math.ceil((16 * KiB * 1000) / MIN_FILE_BYTES_PER_SEC));
    const f = await failure(driver.sendMedia(to, [file], { grouped: false }));
    expect(f.kind).toBe('ambiguous');
    expect(f.message).toContain(`did not take all of POST /api/v1/message/attachment within ${allowed} ms`);
    expect(uploads()).toEqual([]);
  });

  it('lets a download wait for a slow consumer: the idle limit runs only while a read waits on the Mac', async () => {
    const bytes = randomBytes(4 * MiB);
    const att = bb.addAttachment({ bytes, mimeType: 'video/mp4', transferName: 'v.mp4' });
    const parsed = parseConfig(bb.config({ timeout_ms: TIMEOUT_MS }));
    if (!parsed.ok) throw new Error(parsed.problems.join('; '));
    const file = await new BlueBubblesClient(parsed.config).download(`/api/v1/attachment/${att}/download`, { original: 'true' }, 2 * TIMEOUT_MS);
    const chunks: Buffer[] = [];
    let paused = false;
    for await (const c of file.body) {
      chunks.push(c as Buffer);
      if (!paused) {
        paused = true;
        await sleep(3 * TIMEOUT_MS); // the blob store busy: nothing asked of the Mac meanwhile
      }
    }
    expect(sha256(Buffer.concat(chunks))).toBe(sha256(bytes));
  });

  it('fails a download whose body stalls as a timeout naming the idle limit, never with the password', async () => {
    const att = bb.addAttachment({ bytes: randomBytes(MiB), mimeType: 'video/mp4', transferName: 'v.mp4' });
    bb.inject(`GET /api/v1/attachment/${att}/download`, { drip: { pieces: 16, everyMs: 50, stopAfter: 4 } });
    const parsed = parseConfig(bb.config({ timeout_ms: TIMEOUT_MS }));
    if (!parsed.ok) throw new Error(parsed.problems.join('; '));
    const file = await new BlueBubblesClient(parsed.config).download(`/api/v1/attachment/${att}/download`, {}, 2 * TIMEOUT_MS);
    let err: unknown;
    try {
      for await (const _ of file.body);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BlueBubblesError);
    expect(err).toMatchObject({ kind: 'timeout', message: `BlueBubbles Server at ${bb.url.slice(7)} sent no bytes of GET /api/v1/attachment/${att}/download for ${TIMEOUT_MS} ms` });
  });
});
