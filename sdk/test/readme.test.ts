/**
 * Every ```ts block of sdk/README.md runs as written against a real service, in order, each its
 * own process, with no clock moved between them: as a reader runs them on a fresh demo sandbox.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { repoRoot, startService, type Service } from './support/service.js';
import { sineWav } from './support/audio.js';

const run = promisify(execFile);
const readme = fs.readFileSync(path.join(repoRoot, 'sdk', 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
const PNG = '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a4ae0000000049454e44ae426082';

let svc: Service;
let dir: string;

beforeAll(async () => {
  svc = await startService();
  // Inside the repository, so that '@blueline/sdk' resolves to the workspace package.
  dir = fs.mkdtempSync(path.join(repoRoot, 'sdk', '.readme-'));
  fs.writeFileSync(path.join(dir, 'photo.png'), Buffer.from(PNG, 'hex'));
  fs.writeFileSync(path.join(dir, 'note.wav'), sineWav(1));
});
afterAll(async () => {
  await svc?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

it('has the quick start and one example per resource', () => {
  expect(blocks.length).toBeGreaterThanOrEqual(8);
  for (const r of ['lines.list', 'messages.send', 'attachments.upload', 'voiceNotes.stage', 'chats.create', 'events.list', 'events.stream', 'devInbox.pull', 'webhookSubscriptions.create', 'verifyWebhook']) {
    expect(readme).toContain(r);
  }
});

it.each(blocks.map((code, i) => [i, code] as const))('README example %i runs', async (i, code) => {
  const file = path.join(dir, `example-${i}.mts`);
  fs.writeFileSync(file, code);
  const env = { ...process.env, BLUELINE_URL: svc.url, BLUELINE_SECRET: svc.demo.signing_secret, BLUELINE_TENANT: 'demo' };
  const { stderr } = await run(process.execPath, ['--import', 'tsx', file], { cwd: dir, env, timeout: 30_000 });
  expect(stderr).not.toMatch(/Error/);
});
