/**
 * An operator's console session is opened with the admin token. When the operator replaces
 * ADMIN_TOKEN (it leaked, say) and restarts, sessions opened with the old token end: whoever
 * signed in with it must not keep operator access for the rest of its 12 hours. Tested as two
 * processes on one PostgreSQL database (SQLite has one owning process): the first with the old
 * token, the second with the new one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logging.js';
import { fsBlobStore } from '../../src/blobs/index.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { ADMIN_TOKEN, HOOK_SECRET, startTestApp, type TestApp } from '../support/app.js';
import { joinTestStore, type TestStore } from '../support/stores.js';

const NEW_ADMIN_TOKEN = 'test-admin-token-replaced-9876543210';
const ORIGIN = 'http://console.test';

describe('operator sessions and a replaced admin token', () => {
  let t: TestApp;
  let next: { app: FastifyInstance; store: TestStore; blobDir: string };
  beforeAll(async () => {
    t = await startTestApp('postgres');
    // The restarted process: same database, new ADMIN_TOKEN.
    const store = await joinTestStore(t.testStore);
    const config = loadConfig({ BLUELINE_TEST_CLOCK: '1' });
    const logger = createLogger({ level: 'silent', brand: config.headerBrand, stream: new Writable({ write: (_c, _e, cb) => cb() }) });
    const blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-blobs-'));
    const { app } = await buildApp({ config, store: store.store, clock: t.clock, adminToken: NEW_ADMIN_TOKEN, logger, blobs: fsBlobStore(blobDir), hookSecret: HOOK_SECRET });
    next = { app, store, blobDir };
  });
  afterAll(async () => {
    await next.app.close();
    await next.store.cleanup();
    fs.rmSync(next.blobDir, { recursive: true, force: true });
    await t.close();
  });

  const signIn = (app: FastifyInstance, body: object) =>
    app.inject({ method: 'POST', url: '/api/v1/console/sessions', payload: body, headers: { host: 'console.test', origin: ORIGIN } });
  const cookieOf = (res: { headers: Record<string, unknown> }) => String(res.headers['set-cookie']).split(';')[0]!;
  const accounts = (app: FastifyInstance, cookie: string) => app.inject({ method: 'GET', url: '/admin/v1/accounts', headers: { cookie } });

  it('ends operator sessions opened with the old token; tenant sessions and new operator sessions work', async () => {
    const oldOperator = await signIn(t.app, { kind: 'operator', admin_token: ADMIN_TOKEN });
    expect(oldOperator.statusCode).toBe(201);
    const tenant = await signIn(t.app, { kind: 'tenant', tenant: t.demo.tenant, secret: t.demo.signing_secret });
    expect(tenant.statusCode).toBe(201);
    // Both processes share sessions while both run with the token it was opened with.
    expect((await accounts(t.app, cookieOf(oldOperator))).statusCode).toBe(200);

    // The process with the new token no longer takes the old token, nor a session opened with it.
    expect((await next.app.inject({ method: 'GET', url: '/admin/v1/accounts', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).statusCode).toBe(401);
    const replayed = await accounts(next.app, cookieOf(oldOperator));
    expect(replayed.statusCode).toBe(401);
    expect(replayed.json().error.code).toBe(2004);
    const asked = await next.app.inject({ method: 'GET', url: '/api/v1/console/session', headers: { cookie: cookieOf(oldOperator) } });
    expect(asked.statusCode).toBe(401);

    // A tenant's session does not depend on the admin token.
    expect((await next.app.inject({ method: 'GET', url: '/api/v1/phone-numbers', headers: { cookie: cookieOf(tenant) } })).statusCode).toBe(200);
    // Signing in with the new token opens a session that works there (and not where the old token still rules).
    const newOperator = await signIn(next.app, { kind: 'operator', admin_token: NEW_ADMIN_TOKEN });
    expect(newOperator.statusCode).toBe(201);
    expect((await accounts(next.app, cookieOf(newOperator))).statusCode).toBe(200);
    expect((await accounts(t.app, cookieOf(newOperator))).statusCode).toBe(401);
  });
});
