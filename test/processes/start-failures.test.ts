/**
 * A start that fails for a reason outside the service (the database refusing connections, the
 * port taken) says so in one line an operator can act on, with the error's code, and exits 1:
 * no stack trace through node_modules (a log collector splits one into a dozen events), and
 * never the database password.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { spawnService, SERVICE_TEST_MS } from '../support/server-process.js';
import { freePort } from '../support/ports.js';

async function failedStart(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-start-failure-'));
  onTestFinished(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const child = spawnService({ DATA_DIR: dataDir, ...env }, ['ignore', 'ignore', 'pipe']);
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  return { code, stderr };
}

describe('a start that fails', () => {
  it('on a database that refuses connections: one line with the cause, no stack, no password', { timeout: SERVICE_TEST_MS }, async () => {
    const closed = await freePort();
    const { code, stderr } = await failedStart({ DATABASE_URL: `postgres://blueline:pa55-word@127.0.0.1:${closed}/blueline`, PORT: String(await freePort()) });
    expect(code).toBe(1);
    expect(stderr).toMatch(new RegExp(`^blueline failed to start: .*ECONNREFUSED 127\\.0\\.0\\.1:${closed}`));
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).not.toContain('pa55-word');
  });

  it('on a port already taken: one line that names it', { timeout: SERVICE_TEST_MS }, async () => {
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    onTestFinished(() => void taken.close());
    const port = (taken.address() as net.AddressInfo).port;
    const { code, stderr } = await failedStart({ PORT: String(port) });
    expect(code).toBe(1);
    expect(stderr).toMatch(new RegExp(`^blueline failed to start: .*EADDRINUSE.*${port}`));
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });
});
