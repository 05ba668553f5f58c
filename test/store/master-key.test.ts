/**
 * A master key that does not open the stored secrets is refused at start: with the wrong key the
 * service would report ready and then fail every request's authentication (a restored backup
 * without its master.key, a second process started without the shared BLUELINE_MASTER_KEY).
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { openStore } from '../../src/store/index.js';
import { createTestStore, STORE_KINDS } from '../support/stores.js';
import { SERVICE_START_MS, SERVICE_TEST_MS, spawnService, startServerProcess, untilReady } from '../support/server-process.js';
import { freePort } from '../support/ports.js';

describe.each(STORE_KINDS)('the master key, on %s', (kind) => {
  it('opens an empty store with any key, the same store again with its key, and refuses another key, naming the setting', async () => {
    const t = await createTestStore(kind);
    try {
      const where = kind === 'sqlite' ? { sqlitePath: t.location } : { databaseUrl: t.location };
      // No secret stored yet: any key will do (it becomes the store's).
      const other = randomBytes(32);
      await (await openStore({ ...where, masterKey: other })).close();

      await t.store.accounts.insert({ id: 'acct_1', name: 'Acme', multi_tenant: false, email_verified: true, created_at: 1 }, { id: 'sec_1', plain: 'bl_sk_test' });
      const again = await openStore({ ...where, masterKey: t.masterKey });
      expect((await again.accounts.count())).toBe(1);
      await again.close();

      const refused = openStore({ ...where, masterKey: other });
      await expect(refused).rejects.toBeInstanceOf(ConfigError);
      await expect(refused).rejects.toThrow(/BLUELINE_MASTER_KEY.*master\.key.*does not open the secrets stored/);
    } finally {
      await t.cleanup();
    }
  });
});

describe('the service started with another master key', () => {
  it('exits 1 at start and says which key, instead of serving requests it cannot authenticate', { timeout: SERVICE_TEST_MS }, async () => {
    const first = await startServerProcess({ prefix: 'blueline-master-key-' });
    try {
      first.child.kill('SIGTERM');
      expect(await new Promise((r) => first.child.once('exit', r))).toBe(0);
      // A restore without its master.key: the service makes a new key, which opens nothing stored.
      const keyFile = path.join(first.dataDir, 'master.key');
      const rightKey = fs.readFileSync(keyFile);
      fs.rmSync(keyFile);
      const child = spawnService({ PORT: String(await freePort()), DATA_DIR: first.dataDir }, ['ignore', 'ignore', 'pipe']);
      let stderr = '';
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), SERVICE_START_MS);
      const code = await new Promise((r) => child.once('exit', r));
      clearTimeout(timer);
      expect(code).toBe(1);
      expect(stderr).toContain('configuration error: the master key (BLUELINE_MASTER_KEY, else DATA_DIR/master.key) does not open the secrets stored');
      // The key it made is not left behind: the next start would refuse again, and the operator
      // would find a master.key that looks like the right one.
      expect(fs.existsSync(keyFile)).toBe(false);

      // The right key put back: the service starts on its data.
      fs.writeFileSync(keyFile, rightKey, { mode: 0o600 });
      const port = await freePort();
      const again = spawnService({ PORT: String(port), DATA_DIR: first.dataDir }, ['ignore', 'ignore', 'ignore']);
      try {
        await untilReady(again, `http://127.0.0.1:${port}`);
      } finally {
        again.kill('SIGTERM');
        await new Promise((r) => again.once('exit', r));
      }
    } finally {
      first.cleanup();
    }
  });
});
