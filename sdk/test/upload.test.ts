/** A 20 MB upload streams: from a file path and from a generated stream, never whole in memory. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { Blueline, UPLOAD_CONTENT_TYPES, ValidationError } from '@blueline/sdk';
import { startService, type Service } from './support/service.js';

const SIZE = 20 * 1024 * 1024;
const CHUNK = 64 * 1024;
let svc: Service;
let client: Blueline;

beforeAll(async () => {
  svc = await startService();
  client = new Blueline(svc.options);
});
afterAll(() => svc?.stop());

/** Deterministic pseudo-random chunks (never all at once), and their running hash. */
function* chunks(seed: number, hash: crypto.Hash): Generator<Uint8Array> {
  let state = crypto.createHash('sha256').update(String(seed)).digest();
  for (let sent = 0; sent < SIZE; sent += CHUNK) {
    const block = Buffer.alloc(CHUNK);
    for (let i = 0; i < CHUNK; i += 32) {
      state = crypto.createHash('sha256').update(state).digest();
      state.copy(block, i);
    }
    // An MP4's signature first: uploads are checked against their declared type.
    if (sent === 0) block.write('\0\0\0\x18ftypisom', 'latin1');
    hash.update(block);
    yield block;
  }
}

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/**
 * Peak growth of memory still held (after a full collection) outside and inside the JS heap
 * while `fn` runs: a body buffered whole would hold its 20 MB through the upload.
 */
async function peakExternalGrowth(fn: () => Promise<void>): Promise<number> {
  const held = () => {
    // Twice: V8 frees dead ArrayBuffers' memory on a background thread after a collection, and
    // the next collection first waits for that; one call alone sometimes still counted ~7 MB of
    // chunks already sent (samples over a run: 0.5 MB held, then a lone 7 MB, then 0.5 again).
    gc();
    gc();
    const m = process.memoryUsage();
    return m.arrayBuffers + m.heapUsed;
  };
  const base = held();
  let peak = 0;
  const t = setInterval(() => (peak = Math.max(peak, held() - base)), 50);
  try {
    await fn();
  } finally {
    clearInterval(t);
  }
  return peak;
}

async function sha256Of(body: ReadableStream<Uint8Array>): Promise<string> {
  const h = crypto.createHash('sha256');
  for await (const c of body as unknown as AsyncIterable<Uint8Array>) h.update(c);
  return h.digest('hex');
}

describe('attachments.upload, 20 MB', () => {
  it('streams a file from its path, and the download streams back the same bytes', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bl-up-'));
    onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'clip.mp4');
    const written = crypto.createHash('sha256');
    const out = fs.createWriteStream(file);
    for (const c of chunks(1, written)) if (!out.write(c)) await new Promise<void>((r) => out.once('drain', () => r()));
    await new Promise<void>((r) => out.end(() => r()));
    const expected = written.digest('hex');

    let id = '';
    const growth = await peakExternalGrowth(async () => {
      id = (await client.attachments.upload(file)).attachment_id;
    });
    expect(growth).toBeLessThan(SIZE / 2);
    const meta = await client.attachments.get(id);
    expect(meta).toMatchObject({ size_bytes: SIZE, content_type: 'video/mp4', filename: 'clip.mp4' });
    const download = await client.attachments.download(id);
    expect(download.size).toBe(SIZE);
    expect(await sha256Of(download.body)).toBe(expected);
  });

  it('streams a ReadableStream of a given size', async () => {
    const hash = crypto.createHash('sha256');
    const source = ReadableStream.from(chunks(2, hash));
    let id = '';
    const growth = await peakExternalGrowth(async () => {
      id = (await client.attachments.upload(source, { filename: 'gen.mp4', size: SIZE })).attachment_id;
    });
    expect(growth).toBeLessThan(SIZE / 2);
    expect(await sha256Of((await client.attachments.download(id)).body)).toBe(hash.digest('hex'));
  });

  it('a file that is not its declared type: the refusal (1002) reaches the caller as a typed error, not a broken connection', async () => {
    // MP4 bytes named .pdf: refused after the first KiB, while 20 MB are still on their way.
    const err = await client.attachments
      .upload(ReadableStream.from(chunks(3, crypto.createHash('sha256'))), { filename: 'report.pdf', size: SIZE })
      .then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toMatchObject({ status: 400, code: 1002 });
    expect((err as Error).message).toContain('the uploaded bytes are not application/pdf: they begin like an ISO media file (video/mp4, video/quicktime, audio/m4a, image/heic or image/heif); nothing was kept');
  });

  it("a File typed by the browser's name for a type (audio/x-m4a for .m4a) is declared by the API's name; a type the API does not take still reaches it", async () => {
    const m4a = new File([Buffer.from('\0\0\0\x18ftypM4A \0\0\0\0', 'latin1')], 'memo.m4a', { type: 'audio/x-m4a' });
    expect(await client.attachments.upload(m4a)).toMatchObject({ content_type: 'audio/m4a', filename: 'memo.m4a' });
    // .heic comes with no type from most browsers: its extension names it.
    const heic = new File([Buffer.from('\0\0\0\x18ftypheic\0\0\0\0', 'latin1')], 'IMG_0001.HEIC');
    expect(await client.attachments.upload(heic)).toMatchObject({ content_type: 'image/heic' });
    // A document the API does not take: its own type goes, and the API's refusal names the ones it takes.
    const docx = new File(['PK'], 'offer.docx', { type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' });
    const err = await client.attachments.upload(docx).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toMatchObject({ status: 400, code: 5003 });
    for (const type of UPLOAD_CONTENT_TYPES) expect((err as Error).message).toContain(type);
  });
});
