/**
 * The service as an operator runs it (`node src/main.ts` in its own process): its log lines show
 * up while it runs, and SIGTERM stops it cleanly even with a live SSE stream open.
 */
import fs from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';

describe('the service process', () => {
  let server: ServerProcess;
  let url: string;
  let dataDir: string;
  const stdout = () => server.stdout();

  beforeAll(async () => {
    server = await startServerProcess({ prefix: 'blueline-process-', captureStdout: true, env: { LOG_LEVEL: 'info', BLUELINE_LOG_REQUESTS: 'all' } });
    ({ url, dataDir } = server);
  });

  afterAll(() => server.cleanup());

  const waitFor = async (check: () => boolean, ms: number) => {
    const deadline = Date.now() + ms;
    while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    return check();
  };

  it('keeps the demo secrets out of a first-start banner that is not going to a terminal', async () => {
    const demo = JSON.parse(fs.readFileSync(path.join(dataDir, 'demo.json'), 'utf8'));
    expect(stdout()).toContain('Blueline demo sandbox created');
    expect(stdout()).toContain(`it is in ${path.join(dataDir, 'demo.json')}`);
    expect(stdout()).not.toContain(demo.signing_secret);
    expect(stdout()).not.toContain(demo.admin_token);
  });

  it('writes each log line within a moment, not when a buffer fills', async () => {
    const marker = `/no-such-path-${Date.now()}`;
    await fetch(`${url}${marker}`);
    // Flushed every quarter second (logging.ts); a buffered line would wait for 4 KB of others,
    // which a quiet service does not write: 10 s is no latency budget, only the end of waiting.
    expect(await waitFor(() => stdout().includes(marker), 10_000), stdout().slice(-500)).toBe(true);
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
    const exited = new Promise<number | null>((r) => server.child.once('exit', (code) => r(code)));
    server.child.kill('SIGTERM');
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
