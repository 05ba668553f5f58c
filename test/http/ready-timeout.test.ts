/**
 * /readyz answers 503 in time when the store does not answer (README: "answers 503 … while the
 * database is unreachable"), instead of leaving the load balancer waiting. Here the store is kept
 * from answering by transactions that hold it (SQLite: the one writer; PostgreSQL: every pooled
 * connection), as a stuck database would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { STORE_KINDS } from '../support/stores.js';
import { READY_PING_TIMEOUT_MS } from '../../src/http/routes/health/ready.js';

const POOL_SIZE = 10; // store/db.ts

describe.each(STORE_KINDS)('/readyz while the store does not answer, on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind);
  });
  afterAll(async () => t.close());

  it(`answers 503 "store unreachable" after ${READY_PING_TIMEOUT_MS} ms, and 200 once the store answers again`, async () => {
    expect((await t.request({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const holders = Array.from({ length: kind === 'sqlite' ? 1 : POOL_SIZE }, () => t.testStore.store.transaction(() => gate));
    try {
      const started = Date.now();
      const res = await t.request({ method: 'GET', url: '/readyz' });
      const took = Date.now() - started;
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ ok: false, store: kind, error: 'store unreachable' });
      expect(took).toBeGreaterThanOrEqual(READY_PING_TIMEOUT_MS - 50);
      expect(took).toBeLessThan(READY_PING_TIMEOUT_MS + 3_000);
    } finally {
      release();
      await Promise.all(holders);
    }
    expect((await t.request({ method: 'GET', url: '/readyz' })).json()).toEqual({ ok: true, store: kind });
  });
});
