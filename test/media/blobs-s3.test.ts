/**
 * Blobs in a bucket, end to end: a real S3-protocol server on loopback (s3rver), the service's
 * HTTP routes over it, two app instances on one PostgreSQL database and one bucket (as two
 * processes behind a load balancer), the service as its own process, and the memory a large
 * upload costs.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { deviceLog, newRecipient, prepareSandbox } from '../support/messaging.js';
import { startS3, type TestS3 } from '../support/s3.js';
import { projectRoot, spawnService, startServerProcess } from '../support/server-process.js';
import { makeWav16Fast, sine } from '../audio/fixtures.js';
import { decodeCafToPcm } from '../../src/audio/index.js';
import { fileBytes } from '../support/files.js';

const MiB = 1024 * 1024;

let s3: TestS3;
beforeAll(async () => {
  s3 = await startS3();
});
afterAll(async () => s3?.close());

/** The same bucket under a prefix of its own, so each suite sees only its objects. */
const envWithPrefix = (name: string) => ({ ...s3.env, BLUELINE_BLOB_URL: `${s3.env.BLUELINE_BLOB_URL}-${name}` });
const keysUnder = (env: Record<string, string>) => s3.visibleKeys(`${env.BLUELINE_BLOB_URL!.split('/').slice(3).join('/')}/`);

describe('attachments in a bucket', () => {
  let t: TestApp;
  let env: Record<string, string>;
  let address: string;
  beforeAll(async () => {
    env = envWithPrefix('http');
    // Failed requests are logged by the error handler, so a test can tell when a cut-off upload's handler is done.
    t = await startTestApp('sqlite', { ...env, BLUELINE_LOG_REQUESTS: 'errors' });
    address = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => t.close());

  const slot = async (size: number) => {
    const res = await t.api('POST', '/api/v1/attachments', { filename: 'clip.mp4', content_type: 'video/mp4', size_bytes: size });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().attachment_id as string;
  };
  const uploadRequest = (id: string, size: number) =>
    http.request(`${address}/api/v1/attachments/${id}/upload`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${t.demo.signing_secret}`, 'content-type': 'video/mp4', 'content-length': String(size) },
    });
  /** True once the upload's failed request was logged, i.e. its handler is done. */
  const requestLogged = async (id: string, ms = 5_000) => {
    const deadline = Date.now() + ms;
    const logged = () => t.logs.some((l) => l.includes(`/api/v1/attachments/${id}/upload`) && l.includes('"status'));
    while (Date.now() < deadline && !logged()) await new Promise((r) => setTimeout(r, 20));
    return logged();
  };

  it('keeps no visible object of an upload cut off mid-body (past its first part), and the slot stays usable', async () => {
    const size = 12 * MiB;
    const id = await slot(size);
    await new Promise<void>((resolve) => {
      const req = uploadRequest(id, size);
      req.on('error', () => resolve());
      req.on('close', () => resolve());
      // 8 MiB: the first 5 MiB part is already in the bucket's multipart upload when the client dies.
      req.write(fileBytes('video/mp4', 8 * MiB), () => setTimeout(() => req.destroy(), 300));
    });
    expect(await requestLogged(id), 'the cut-off upload was not answered').toBe(true);
    expect(await keysUnder(env)).toEqual([]);
    expect((await t.api('GET', `/api/v1/attachments/${id}`)).json().attachment.uploaded_at).toBeNull();

    const bytes = fileBytes('video/mp4', size);
    const status = await new Promise<number>((resolve, reject) => {
      const req = uploadRequest(id, size);
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      req.end(bytes);
    });
    expect(status).toBe(200);
    const keys = await keysUnder(env);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(new RegExp(`^att/${id}\\.`));
    // Served from the bucket: whole, and a range through a ranged GET.
    const whole = await t.api('GET', `/api/v1/attachments/${id}/content`);
    expect(whole.rawPayload.equals(bytes)).toBe(true);
    const range = await t.api('GET', `/api/v1/attachments/${id}/content`, undefined, { headers: { range: `bytes=${6 * MiB}-${6 * MiB + 99}` } });
    expect(range.statusCode).toBe(206);
    expect(range.rawPayload.equals(bytes.subarray(6 * MiB, 6 * MiB + 100))).toBe(true);
  });

  it('refuses bytes that are not the declared type (1002) and keeps no object of them', async () => {
    const size = 6 * MiB;
    const id = await slot(size);
    const before = await keysUnder(env);
    const res = await t.request({
      method: 'PUT', url: `/api/v1/attachments/${id}/upload`, payload: fileBytes('image/png', size),
      headers: { authorization: `Bearer ${t.demo.signing_secret}`, 'content-type': 'video/mp4' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 1002, message: 'the uploaded bytes are not video/mp4: they begin like image/png; nothing was kept' });
    expect(await keysUnder(env)).toEqual(before);
    expect((await t.api('GET', `/api/v1/attachments/${id}`)).json().attachment.uploaded_at).toBeNull();
  });
});

describe('a voice note staged through one process and sent through another (one PostgreSQL, one bucket)', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    const env = envWithPrefix('two');
    a = await startTestApp('postgres', env);
    b = await startTestApp('postgres', env, { join: a });
    await prepareSandbox(a);
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  it('goes out through B with the bytes A staged', async () => {
    const wav = makeWav16Fast(2 * 44_100, 2, 44_100, sine(440, 44_100));
    const staged = await a.api('POST', '/api/v1/voice-notes', { audio_base64: wav.toString('base64'), mime_type: 'audio/wav' });
    expect(staged.statusCode, staged.body).toBe(200);
    const vn = staged.json();
    const sent = await b.api('POST', '/api/v1/send', { phone: newRecipient(), phone_line_id: vn.phone_line_id, voice_note: { voice_note_id: vn.voice_note_id } });
    expect(sent.statusCode, sent.body).toBe(200);
    const [entry] = await deviceLog(b, vn.phone_line_id);
    expect(entry).toMatchObject({ kind: 'voice_note', is_audio_message: true });
    const part = (entry!.parts as { content_path: string }[])[0]!;
    // B reads the file A wrote: the device gets a playable two-second CAF.
    const caf = await b.admin('GET', part.content_path);
    expect(caf.statusCode).toBe(200);
    expect(caf.rawPayload.subarray(0, 4).toString('latin1')).toBe('caff');
    const pcm = await decodeCafToPcm(caf.rawPayload);
    expect(pcm.samples.length / pcm.sampleRate).toBeCloseTo(2, 1);
  });
});

describe('the service process on a bucket', () => {
  it('stores uploads in the bucket named by BLUELINE_BLOB_URL', async () => {
    const env = envWithPrefix('proc');
    const server = await startServerProcess({ prefix: 'blueline-s3-process-', env });
    try {
      const demo = JSON.parse(fs.readFileSync(path.join(server.dataDir, 'demo.json'), 'utf8'));
      const auth = { authorization: `Bearer ${demo.signing_secret}` };
      const bytes = fileBytes('image/png', 3000);
      const slot = (await (await fetch(`${server.url}/api/v1/attachments`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ filename: 'a.png', content_type: 'image/png', size_bytes: bytes.length }) })).json()) as { attachment_id: string; upload_url: string; required_headers: Record<string, string> };
      const put = await fetch(slot.upload_url, { method: 'PUT', headers: slot.required_headers, body: bytes });
      expect(put.status).toBe(200);
      expect(await keysUnder(env)).toEqual([expect.stringMatching(new RegExp(`^att/${slot.attachment_id}\\.`))]);
      const back = Buffer.from(await (await fetch(`${server.url}/api/v1/attachments/${slot.attachment_id}/content`, { headers: auth })).arrayBuffer());
      expect(back.equals(bytes)).toBe(true);
    } finally {
      server.cleanup();
    }
  });

  it('refuses to start when the bucket does not take a write, and says which bucket (never the secret)', async () => {
    const secret = 'not-the-right-secret-0123456789';
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-s3-bad-'));
    const child = spawnService({ ...envWithPrefix('bad'), AWS_SECRET_ACCESS_KEY: secret, PORT: '0', DATA_DIR: dataDir }, ['ignore', 'ignore', 'pipe']);
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    fs.rmSync(dataDir, { recursive: true, force: true });
    expect(code).toBe(1);
    expect(stderr).toContain('blueline failed to start');
    expect(stderr).toContain(`blob bucket ${envWithPrefix('bad').BLUELINE_BLOB_URL}/ did not answer at ${s3.endpoint}`);
    expect(stderr).not.toContain(secret);
  });
});

describe('a 100 MiB upload to the bucket', () => {
  it('streams in bounded parts: the process grows by less than 64 MB', async () => {
    const env = envWithPrefix('rss');
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', path.join(projectRoot, 'test/support/s3-upload-rss.ts'), '100'], {
      cwd: projectRoot,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    expect(code, err).toBe(0);
    const { bytes, baselineRss, peakRss } = JSON.parse(out);
    expect(bytes).toBe(100 * MiB);
    expect(await keysUnder(env)).toEqual(['att/hundred', 'att/warmup']);
    const growthMB = (peakRss - baselineRss) / 1e6;
    console.log(`100 MiB upload to the bucket: RSS growth ${growthMB.toFixed(1)} MB`);
    expect(growthMB).toBeLessThan(64);
  }, 120_000);
});
