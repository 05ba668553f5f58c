/**
 * Processes started together on an empty PostgreSQL database (several behind a load balancer, the
 * README's "Running on PostgreSQL"): the first start's demo sandbox is made once. Before, each
 * process that found no account made its own: one demo account was left without a tenant, and a
 * process whose tenant slug was refused exited at start.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { fsBlobStore } from '../../src/blobs/index.js';
import { systemClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logging.js';
import { openStore } from '../../src/store/index.js';
import { createDemoSandbox } from '../../src/domain/accounts-tenants/demo.js';
import { createPgDatabase } from '../support/stores.js';
import { ADMIN_TOKEN, HOOK_SECRET } from '../support/app.js';
import { SERVICE_TEST_MS, startServerProcess } from '../support/server-process.js';

describe('the demo sandbox when several processes start at once on an empty PostgreSQL database', () => {
  it('two app instances making it at once: one account, and both are handed the same sandbox, which works', async () => {
    const db = await createPgDatabase();
    const masterKey = randomBytes(32);
    const blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-first-start-'));
    const config = loadConfig({ LOG_LEVEL: 'silent', BLUELINE_DELIVERY_WORKER: '0' });
    const instances = await Promise.all(
      [0, 1].map(async () => {
        const store = await openStore({ databaseUrl: db.url, masterKey });
        const logger = createLogger({ level: 'silent', brand: config.headerBrand });
        const { app, services } = await buildApp({ config, store, clock: systemClock(), adminToken: ADMIN_TOKEN, logger, blobs: fsBlobStore(blobDir), hookSecret: HOOK_SECRET });
        return { app, services, store };
      }),
    );
    try {
      const made = await Promise.allSettled(instances.map((i) => createDemoSandbox(i.services, { baseUrl: 'http://127.0.0.1', adminToken: ADMIN_TOKEN })));
      expect(made.map((m) => (m.status === 'rejected' ? String(m.reason) : 'ok'))).toEqual(['ok', 'ok']);
      const [first, second] = made.map((m) => (m as PromiseFulfilledResult<Awaited<ReturnType<typeof createDemoSandbox>>>).value);
      expect(second).toEqual(first);
      expect(first!.phone_line_ids).toHaveLength(2);
      expect(await instances[0]!.store.accounts.count()).toBe(1);
      // The secret both were handed works on either instance, and sends from a demo line.
      for (const i of instances) {
        const res = await i.app.inject({ method: 'POST', url: '/api/v1/send', headers: { authorization: `Bearer ${first!.signing_secret}` }, payload: { phone: '+14155550123', body: 'hello' } });
        expect(res.statusCode, res.body).toBe(200);
        expect(first!.phone_line_ids).toContain(res.json().phone_line_id);
      }
    } finally {
      for (const i of instances) await i.app.close();
      for (const i of instances) await i.store.close();
      fs.rmSync(blobDir, { recursive: true, force: true });
      await db.drop();
    }
  });

  it('three service processes started together: all start, with one demo account, and every demo.json written names it', { timeout: SERVICE_TEST_MS }, async () => {
    const db = await createPgDatabase();
    // LOG_LEVEL info: a start that never comes shows how far it got (untilReady's error).
    const env = { DATABASE_URL: db.url, BLUELINE_MASTER_KEY: randomBytes(32).toString('base64'), ADMIN_TOKEN: 'first-start-admin-token-0123456789', LOG_LEVEL: 'info' };
    const started = await Promise.allSettled([0, 1, 2].map((i) => startServerProcess({ env, prefix: `blueline-first-start-${i}-` })));
    const servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    try {
      expect(started.map((s) => (s.status === 'rejected' ? String(s.reason) : 'ok'))).toEqual(['ok', 'ok', 'ok']);
      const res = await fetch(`${servers[0]!.url}/admin/v1/accounts`, { headers: { authorization: `Bearer ${env.ADMIN_TOKEN}` } });
      expect(((await res.json()) as { accounts: unknown[] }).accounts).toHaveLength(1);
      // A process that found the sandbox made already writes no demo.json (main.ts); those that
      // made it or were handed it write the same one.
      const files = servers.map((s) => path.join(s.dataDir, 'demo.json')).filter((f) => fs.existsSync(f));
      expect(files.length).toBeGreaterThan(0);
      const demos = files.map((f) => JSON.parse(fs.readFileSync(f, 'utf8')) as { signing_secret: string; phone_line_ids: string[] });
      for (const d of demos) expect({ ...d, base_url: undefined }).toEqual({ ...demos[0], base_url: undefined });
      // The operator's ADMIN_TOKEN (from their secret store) is not copied to disk.
      for (const f of files) expect(fs.readFileSync(f, 'utf8')).not.toContain(env.ADMIN_TOKEN);
      for (const d of demos) expect(d).not.toHaveProperty('admin_token');
    } finally {
      for (const s of servers) s.cleanup();
      await db.drop();
    }
  });

  it('with BLUELINE_DEMO=0, a first start makes no demo sandbox', { timeout: SERVICE_TEST_MS }, async () => {
    const db = await createPgDatabase();
    const env = { DATABASE_URL: db.url, BLUELINE_MASTER_KEY: randomBytes(32).toString('base64'), ADMIN_TOKEN: 'first-start-admin-token-0123456789', BLUELINE_DEMO: '0' };
    const server = await startServerProcess({ env, prefix: 'blueline-no-demo-' });
    try {
      const admin = { authorization: `Bearer ${env.ADMIN_TOKEN}` };
      const accounts = (await (await fetch(`${server.url}/admin/v1/accounts`, { headers: admin })).json()) as { accounts: unknown[] };
      const tenants = (await (await fetch(`${server.url}/admin/v1/tenants`, { headers: admin })).json()) as { tenants: unknown[] };
      expect([accounts.accounts, tenants.tenants]).toEqual([[], []]);
      expect(fs.existsSync(path.join(server.dataDir, 'demo.json'))).toBe(false);
    } finally {
      server.cleanup();
      await db.drop();
    }
  });
});
