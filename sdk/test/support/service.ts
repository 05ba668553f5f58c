/**
 * The service as a real process on a fresh SQLite data directory (as `npm start` runs it, from
 * source), with the test clock and its demo sandbox, plus the operator calls the SDK's tests
 * need (device log, inbound messages, the clock). `BLUELINE_SERVICE_ROOT` points the tests at
 * another checkout of the service (default: this repository).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { freePort } from '../../../test/support/ports.js';

export const repoRoot = path.resolve(import.meta.dirname, '..', '..', '..');
const serviceRoot = process.env.BLUELINE_SERVICE_ROOT ?? repoRoot;

export interface Demo {
  base_url: string;
  tenant: string;
  signing_secret: string;
  admin_token: string;
  phone_line_ids: string[];
}

export interface DeviceLogEntry {
  id: string;
  [k: string]: unknown;
}

export interface Service {
  url: string;
  demo: Demo;
  /** SDK options for the demo tenant. */
  options: { baseUrl: string; secret: string; tenant: string };
  admin<T = unknown>(method: string, p: string, body?: unknown): Promise<T>;
  /** What the simulated device of a line was asked to send, newest first. */
  deviceLog(lineId: string): Promise<DeviceLogEntry[]>;
  /** Every line's device log, newest first. */
  allSent(): Promise<DeviceLogEntry[]>;
  /** An inbound iMessage from `from` on the demo's first line (one `message.received` event). */
  inbound(from: string, text: string, lineId?: string): Promise<void>;
  /** Move business time (first-touch gaps, windows). */
  advance(ms: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startService(env: Record<string, string> = {}): Promise<Service> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bl-sdk-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(serviceRoot, 'src/main.ts')], {
    cwd: serviceRoot,
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      BLUELINE_TEST_CLOCK: '1',
      BLUELINE_ALLOW_PRIVATE_NETWORKS: '1',
      BLUELINE_WEBHOOK_BACKOFF_MS: '50,100',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  let ready = false;
  for (let i = 0; i < 300 && !ready; i++) {
    if (child.exitCode !== null) break;
    ready = await fetch(`${url}/readyz`).then((r) => r.ok, () => false);
    if (!ready) await new Promise((r) => setTimeout(r, 100));
  }
  if (!ready) {
    await stop();
    throw new Error(`the service did not start (from ${serviceRoot})`);
  }
  const demo = JSON.parse(fs.readFileSync(path.join(dataDir, 'demo.json'), 'utf8')) as Demo;

  async function admin<T>(method: string, p: string, body?: unknown): Promise<T> {
    const res = await fetch(url + p, {
      method,
      headers: { authorization: `Bearer ${demo.admin_token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }
  const deviceLog = async (lineId: string) => (await admin<{ sent: DeviceLogEntry[] }>('GET', `/admin/v1/lines/${lineId}/simulate/sent`)).sent;
  return {
    url,
    demo,
    options: { baseUrl: url, secret: demo.signing_secret, tenant: demo.tenant },
    admin,
    deviceLog,
    async allSent() {
      return (await Promise.all(demo.phone_line_ids.map(deviceLog))).flat();
    },
    async inbound(from, text, lineId = demo.phone_line_ids[0]!) {
      await admin('POST', `/admin/v1/lines/${lineId}/simulate/inbound`, { from, text });
    },
    async advance(ms) {
      await admin('POST', '/admin/v1/clock/advance', { ms });
    },
    stop,
  };
}

/** Ten minutes and a second: past the per-line first-touch gap. */
export const FIRST_TOUCH_GAP_MS = 601_000;

export async function until<T>(what: string, fn: () => Promise<T | undefined | false>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
