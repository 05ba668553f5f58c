/**
 * README's "Verifying webhooks in your receiver" example, run as written (only its port moved to
 * a free one) in its own process, receiving deliveries signed by the service's own signer.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { deliveryHeaders } from '../../src/delivery/signer.js';
import { freePort } from '../support/ports.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('### Verifying webhooks in your receiver'));
const example = /```js\n([\s\S]*?)```/.exec(section)![1]!;
const SECRET = 'whsec_readme_example';

let dir: string;
let child: ChildProcess;
let port: number;
let stderr = '';

beforeAll(async () => {
  port = await freePort();
  expect(example).toContain('.listen(3000)');
  // Inside the repository, so that '@blueline/sdk' resolves to the workspace package as it does for a user's install.
  dir = fs.mkdtempSync(path.join(repoRoot, '.readme-receiver-'));
  const file = path.join(dir, 'receiver.mjs');
  fs.writeFileSync(file, example.replace('.listen(3000)', `.listen(${port}, '127.0.0.1')`));
  child = spawn(process.execPath, [file], { env: { ...process.env, WEBHOOK_SECRET: SECRET }, stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  // Up to 30 s: a node process importing the SDK starts in well under a second, but a loaded CI
  // machine (the whole suite on 2 cores) once took longer than the 5 s this allowed.
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) break;
    const up = await fetch(`http://127.0.0.1:${port}/`, { method: 'HEAD' }).then(() => true, () => false);
    if (up) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the README receiver did not start: ${stderr}`);
});
afterAll(() => {
  child?.kill();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function deliver(body: string, secrets: string[], tamper = false) {
  const headers = deliveryHeaders({
    secrets,
    rawBody: Buffer.from(body),
    timestampSeconds: Math.floor(Date.now() / 1000),
    eventType: 'message.received',
    eventId: 'imessage:msg:readme-1',
    subscriptionId: 'sub_readme',
  });
  const res = await fetch(`http://127.0.0.1:${port}/hooks/blueline`, { method: 'POST', headers, body: tamper ? body.replace('hi', 'ho') : body });
  return res.status;
}

it('accepts a signed delivery, answers 401 to a tampered or wrongly signed one, and keeps running', async () => {
  const body = JSON.stringify({ event: 'message.received', event_id: 'imessage:msg:readme-1', text: 'hi' });
  expect(await deliver(body, [SECRET])).toBe(200);
  expect(await deliver(body, [SECRET], true)).toBe(401);
  expect(await deliver(body, ['whsec_someone_else'])).toBe(401);
  // During a rotation the delivery carries one v1= per secret, the newest first.
  expect(await deliver(body, ['whsec_newer', SECRET])).toBe(200);
  expect(child.exitCode).toBeNull();
  expect(stderr).toBe('');
});
