/**
 * A 100 MB attachment PUT against writing the same bytes with fs (same run,
 * same disk), and the server's peak RSS growth while it streams.
 * Targets: ratio ≥ 0.7 of raw fs speed, peak RSS growth < 64 MB.
 *   npx tsx bench/upload.ts
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { startBlueline } from './lib/harness.js';
import { freePort } from '../test/support/ports.js';

const SIZE = 100 * 1024 * 1024;
// Each chunk begins as an MP4 does (the upload's declared type is checked on its first bytes).
const CHUNK = Buffer.concat([Buffer.from('\0\0\0\x18ftypisom', 'latin1'), randomBytes(1024 * 1024 - 12)]);


function status(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(text)![1]) * 1024;
}

/** Writes SIZE bytes in 1 MiB chunks, honouring back-pressure. */
async function pump(w: NodeJS.WritableStream) {
  for (let sent = 0; sent < SIZE; sent += CHUNK.length) {
    if (!w.write(CHUNK)) await new Promise((r) => w.once('drain', r));
  }
}

async function rawFs(dir: string): Promise<number> {
  const file = path.join(dir, 'raw.bin');
  const t0 = performance.now();
  const w = fs.createWriteStream(file);
  await pump(w);
  await new Promise<void>((r) => w.end(r));
  const fh = await fs.promises.open(file, 'r+');
  await fh.sync();
  await fh.close();
  const ms = performance.now() - t0;
  fs.rmSync(file);
  return ms;
}

const bl = await startBlueline(await freePort());
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-upload-bench-'));
try {
  const auth = { authorization: `Bearer ${bl.demo.signing_secret}`, 'content-type': 'application/json' };
  const runs: { fsMs: number; putMs: number; rssGrowth: number }[] = [];
  for (let i = 0; i < 3; i++) {
    const fsMs = await rawFs(dir);
    const slot = await (await fetch(`${bl.url}/api/v1/attachments`, { method: 'POST', headers: auth, body: JSON.stringify({ filename: 'big.mp4', content_type: 'video/mp4', size_bytes: SIZE }) })).json() as { attachment_id: string };
    const pid = bl.child.pid!;
    const rssBefore = status(pid, 'VmRSS');
    let peak = rssBefore;
    const sampler = setInterval(() => (peak = Math.max(peak, status(pid, 'VmRSS'))), 5);
    const t0 = performance.now();
    const code = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${bl.url}/api/v1/attachments/${slot.attachment_id}/upload`, {
        method: 'PUT',
        headers: { authorization: auth.authorization, 'content-type': 'video/mp4', 'content-length': String(SIZE) },
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      req.on('error', reject);
      void pump(req).then(() => req.end());
    });
    const putMs = performance.now() - t0;
    clearInterval(sampler);
    if (code !== 200) throw new Error(`upload answered ${code}`);
    runs.push({ fsMs, putMs, rssGrowth: peak - rssBefore });
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const fsMs = median(runs.map((r) => r.fsMs));
  const putMs = median(runs.map((r) => r.putMs));
  const growth = Math.max(...runs.map((r) => r.rssGrowth));
  const mbps = (ms: number) => (SIZE / 1024 / 1024 / (ms / 1000)).toFixed(0);
  console.log(`machine: ${os.cpus().length} cores, node ${process.version}; 100 MiB, median of ${runs.length}`);
  console.log(`fs write + fsync baseline   ${fsMs.toFixed(0).padStart(6)} ms  ${mbps(fsMs)} MiB/s`);
  console.log(`PUT upload (loopback)       ${putMs.toFixed(0).padStart(6)} ms  ${mbps(putMs)} MiB/s  ratio ${(fsMs / putMs).toFixed(2)}  ${fsMs / putMs >= 0.7 ? 'meets' : 'MISSES'} target ≥ 0.7`);
  console.log(`server peak RSS growth      ${(growth / 1024 / 1024).toFixed(1)} MiB  ${growth < 64 * 1024 * 1024 ? 'meets' : 'MISSES'} target < 64 MiB`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
  await bl.stop();
}
