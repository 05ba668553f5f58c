/**
 * The packed SDK loaded as users load it, each in its own Node process against a real service:
 * `require` from CommonJS and `import` from an ES module, on a Node with require(esm) (≥ 20.19 /
 * 22.12: both get the ES build, through the "module-sync" condition) and on one without it
 * (`--no-experimental-require-module`, as Node 20.6–20.18 and 22.0–22.11 run: `require` gets the
 * CommonJS build). The client answers, a failure is a typed BlueLineError, and when both builds
 * are loaded at once (the dual-package hazard) `instanceof` holds across them.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from './support/service.js';
import { packedProject, type PackedProject } from './support/packed.js';

const run = promisify(execFile);

let svc: Service;
let project: PackedProject;

beforeAll(async () => {
  [svc, project] = await Promise.all([startService(), packedProject()]);
  const write = (name: string, code: string) => fs.writeFileSync(path.join(project.dir, name), code);

  // The same checks from either module system: `sdk` and `webhooks` are the loaded entry points.
  const checks = `
async function check(sdk, webhooks, entry) {
  const { Blueline, BlueLineError, NotFoundError, ValidationError } = sdk;
  const client = new Blueline({ maxRetries: 0 });
  const lines = await client.lines.list();
  const err = await client.messages.get('msg_00000000000000000000000000').then(() => null, (e) => e);
  const { body, headers } = webhooks.signTestWebhook({ event_type: 'message.received', event_id: 'e1', data: {} }, 'whsec_t');
  const event = webhooks.verifyWebhook(body, headers, 'whsec_t');
  let refused = null;
  try { webhooks.verifyWebhook(body + ' ', headers, 'whsec_t'); } catch (e) { refused = e; }
  return {
    entry,
    lines: lines.length,
    error: { name: err && err.name, status: err && err.status, code: err && err.code, blueLine: err instanceof BlueLineError, notFound: err instanceof NotFoundError, validation: err instanceof ValidationError },
    webhook: { event_id: event.event_id, refused: refused instanceof webhooks.WebhookVerificationError, reason: refused && refused.reason },
  };
}`;
  write('user.cjs', `${checks}
const sdk = require('@blueline/sdk');
check(sdk, require('@blueline/sdk/webhooks'), require.resolve('@blueline/sdk')).then((r) => console.log(JSON.stringify(r)), (e) => { console.error(e); process.exit(1); });
`);
  write('user.mjs', `${checks}
import * as sdk from '@blueline/sdk';
import * as webhooks from '@blueline/sdk/webhooks';
console.log(JSON.stringify(await check(sdk, webhooks, import.meta.resolve('@blueline/sdk'))));
`);
  // Both module systems in one process: the CommonJS client's errors caught with the ES classes.
  write('both.mjs', `
import { createRequire } from 'node:module';
import * as esm from '@blueline/sdk';
import * as esmHooks from '@blueline/sdk/webhooks';
const require = createRequire(import.meta.url);
const cjs = require('@blueline/sdk');
const cjsHooks = require('@blueline/sdk/webhooks');
const fromCjs = await new cjs.Blueline({ maxRetries: 0 }).messages.get('msg_00000000000000000000000000').then(() => null, (e) => e);
const fromEsm = await new esm.Blueline({ maxRetries: 0 }).messages.get('msg_00000000000000000000000000').then(() => null, (e) => e);
const { body, headers } = esmHooks.signTestWebhook({ event_id: 'e1' }, 'whsec_t');
let refused = null;
try { cjsHooks.verifyWebhook(body + ' ', headers, 'whsec_t'); } catch (e) { refused = e; }
console.log(JSON.stringify({
  sameCopy: cjs.BlueLineError === esm.BlueLineError,
  cjsErrorAsEsm: [fromCjs instanceof esm.BlueLineError, fromCjs instanceof esm.NotFoundError, fromCjs instanceof esm.RateLimitError, fromCjs instanceof Error],
  esmErrorAsCjs: [fromEsm instanceof cjs.BlueLineError, fromEsm instanceof cjs.NotFoundError, fromEsm instanceof cjs.ValidationError],
  webhookError: [refused instanceof esmHooks.WebhookVerificationError, refused instanceof cjsHooks.WebhookVerificationError, new Error('x') instanceof esmHooks.WebhookVerificationError],
  plainErrorIsNot: new Error('x') instanceof esm.BlueLineError,
}));
`);
});
afterAll(async () => {
  project?.remove();
  await svc?.stop();
});

async function node(args: string[]): Promise<Record<string, unknown>> {
  const env = { ...process.env, BLUELINE_URL: svc.url, BLUELINE_SECRET: svc.demo.signing_secret, BLUELINE_TENANT: 'demo', NODE_OPTIONS: '' };
  const { stdout, stderr } = await run(process.execPath, args, { cwd: project.dir, env, timeout: 30_000 });
  expect(stderr).toBe(''); // no warning (an experimental require(esm) one included)
  return JSON.parse(stdout) as Record<string, unknown>;
}

const expected = {
  error: { name: 'NotFoundError', status: 404, code: 2003, blueLine: true, notFound: true, validation: false },
  webhook: { event_id: 'e1', refused: true, reason: 'signature_mismatch' },
};

describe('the packed SDK', () => {
  it('ships both builds and no tests or sources', () => {
    const files = fs.readdirSync(project.sdkDir, { recursive: true }).map(String);
    expect(files).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'dist/cjs/index.js', 'dist/cjs/index.d.ts', 'dist/cjs/webhooks.js', 'dist/cjs/package.json']));
    expect(files.filter((f) => f.startsWith('test') || f.startsWith('src') || f.startsWith('scripts'))).toEqual([]);
  });

  it("require('@blueline/sdk') from CommonJS, with require(esm) (Node ≥ 20.19): the ES build, a working client and typed errors", async () => {
    const r = await node(['user.cjs']);
    expect(r).toMatchObject({ ...expected, lines: svc.demo.phone_line_ids.length });
    expect(r.entry).toBe(path.join(fs.realpathSync(project.sdkDir), 'dist', 'index.js'));
  });

  it("require('@blueline/sdk') from CommonJS, without require(esm) (Node 20.6–20.18): the CommonJS build, a working client and typed errors", async () => {
    const r = await node(['--no-experimental-require-module', 'user.cjs']);
    expect(r).toMatchObject({ ...expected, lines: svc.demo.phone_line_ids.length });
    expect(r.entry).toBe(path.join(fs.realpathSync(project.sdkDir), 'dist', 'cjs', 'index.js'));
  });

  it('import from an ES module: the ES build, with and without require(esm)', async () => {
    for (const flags of [[], ['--no-experimental-require-module']]) {
      const r = await node([...flags, 'user.mjs']);
      expect(r, flags.join(' ')).toMatchObject({ ...expected, lines: svc.demo.phone_line_ids.length });
      expect(r.entry).toMatch(/\/node_modules\/@blueline\/sdk\/dist\/index\.js$/);
    }
  });

  it('with require(esm), require and import share one copy: no dual-package hazard', async () => {
    expect(await node(['both.mjs'])).toMatchObject({ sameCopy: true });
  });

  it('with both builds loaded (no require(esm)), instanceof holds across them, per class', async () => {
    expect(await node(['--no-experimental-require-module', 'both.mjs'])).toEqual({
      sameCopy: false,
      cjsErrorAsEsm: [true, true, false, true],
      esmErrorAsCjs: [true, true, false],
      webhookError: [true, true, false],
      plainErrorIsNot: false,
    });
  });
});
