/**
 * The service as an operator runs it (`node src/main.ts` in its own process): its log lines show
 * up while it runs, and SIGTERM stops it cleanly even with a live SSE stream open.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/ports.js';

const root = path.resolve(import.meta.dirname, '..', '..');

describe('the service process', () => {
  let dataDir: string;
  let server: ChildProcess;
  let url: string;
  let stdout = '';

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-process-'));
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src/main.ts')], {
      cwd: root,
      env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'info', BLUELINE_LOG_REQUESTS: 'all' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    server.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    for (let i = 0; i < 300; i++) {
      if (server.exitCode !== null) throw new Error('server exited');
      if (await fetch(`${url}/readyz`).then((r) => r.ok, () => false)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('server did not start');
  });

  afterAll(() => {
    if (server.exitCode === null) server.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const waitFor = async (check: () => boolean, ms: number) => {
    const deadline = Date.now() + ms;
    while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    return check();
  };

  it('writes each log line within a moment, not when a buffer fills', async () => {
    const marker = `/no-such-path-${Date.now()}`;
    await fetch(`${url}${marker}`);
    expect(await waitFor(() => stdout.includes(marker), 2_000), stdout.slice(-500)).toBe(true);
  });

  it('stops on SIGTERM with an SSE stream open: exit code 0, the store closed', async () => {
    const demo = JSON.parse(fs.readFileSync(path.join(dataDir, 'demo.json'), 'utf8'));
    let opened!: () => void;
    const open = new Promise<void>((r) => (opened = r));
    const req = http.get(`${url}/api/v1/events/stream`, { headers: { authorization: `Bearer ${demo.signing_secret}`, 'x-service-tenant': 'demo' } }, (res) => {
      expect(res.statusCode).toBe(200);
      res.resume();
      opened();
    });
    req.on('error', () => {});
    await open;
    const started = Date.now();
    const exited = new Promise<number | null>((r) => server.once('exit', (code) => r(code)));
    server.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(5_000);
    // A clean close folds the WAL back into the database file.
    expect(fs.existsSync(path.join(dataDir, 'blueline.sqlite-wal'))).toBe(false);
  });

  it('keeps what it wrote readable by its own user only', () => {
    for (const name of ['blueline.sqlite', 'master.key', 'admin-token', 'demo.json', 'blobs']) {
      expect((fs.statSync(path.join(dataDir, name)).mode & 0o077).toString(8), name).toBe('0');
    }
  });
});
