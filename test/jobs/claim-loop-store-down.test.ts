/**
 * The claim loop while its database is down: a real PostgreSQL test database that stops taking
 * connections (its sessions terminated, as a restart or failover does), not a mock of our store.
 * The outage is logged when it starts, once a minute while it lasts and when it ends, not on
 * every poll (it was a full error with its stack, several a second per worker).
 * The minute is moved on the test clock (Date only: the polls and the driver run in real time).
 */
import { Writable } from 'node:stream';
import pg from 'pg';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { claimLoop, FAILING_REMINDER_MS } from '../../src/jobs/claim-loop.js';
import { createLogger } from '../../src/logging.js';
import { createTestStore, type TestStore } from '../support/stores.js';

/** Resolves once `cond` holds, checking every few ms; fails after `ms`. */
async function until(cond: () => boolean, ms = 10_000) {
  const end = performance.now() + ms;
  while (!cond()) {
    if (performance.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Runs `sql` on the run's server as its superuser (not through the store under test). */
async function asAdmin(sql: string) {
  const c = new pg.Client({ connectionString: inject('pgUrl') });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

describe('the claim loop with its PostgreSQL database down', () => {
  let ts: TestStore | undefined;
  let dbName = '';

  afterEach(async () => {
    vi.useRealTimers();
    if (!ts) return;
    await asAdmin(`alter database ${dbName} allow_connections true`).catch(() => {});
    await ts.cleanup();
    ts = undefined;
  });

  it('logs the failure once when it starts, a reminder a minute, and once when it recovers', async () => {
    ts = await createTestStore('postgres');
    dbName = new URL(ts.location).pathname.slice(1);
    const { store } = ts;
    const lines: { level: number; msg: string; reason?: string; err?: unknown; failed_ticks?: number; failing_ms?: number }[] = [];
    const logger = createLogger({
      level: 'info',
      stream: new Writable({
        write(chunk, _enc, cb) {
          lines.push(JSON.parse(chunk.toString()));
          cb();
        },
      }),
    });
    let ok = 0;
    let failed = 0;
    // The webhook worker's claim (delivery/worker.ts), on the real store.
    const loop = claimLoop({
      tick: async () => {
        try {
          const claimed = await store.deliveries.claimDue('test-worker', Date.now(), 60_000, 10);
          ok++;
          return claimed.length;
        } catch (err) {
          failed++;
          throw err;
        }
      },
      nextDueAt: () => store.events.nextDueAt(),
      batch: 10,
      pollMs: 10,
      label: 'webhook worker',
      logger,
    });
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2030-01-01T00:00:00Z'));
    loop.start();
    try {
      await until(() => ok >= 3);
      expect(lines).toEqual([]);

      // The database goes away: no new sessions, and the open ones cut.
      await asAdmin(`alter database ${dbName} allow_connections false`);
      await asAdmin(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${dbName}' and pid <> pg_backend_pid()`);
      await until(() => failed >= 30);
      const failedLines = () => lines.filter((l) => l.msg === 'webhook worker tick failed');
      const reminders = () => lines.filter((l) => l.msg === 'webhook worker tick still failing');
      expect(failedLines()).toHaveLength(1);
      expect(failedLines()[0]).toMatchObject({ level: 40, reason: expect.any(String) });
      expect(failedLines()[0]!.reason).not.toBe('');
      expect(lines).toHaveLength(1);

      // Not a minute yet: still quiet.
      vi.setSystemTime(Date.now() + FAILING_REMINDER_MS - 1_000);
      let seen = failed;
      await until(() => failed >= seen + 10);
      expect(lines).toHaveLength(1);

      // A minute on: one reminder, however many polls failed since.
      vi.setSystemTime(Date.now() + 1_000);
      seen = failed;
      await until(() => failed >= seen + 30);
      expect(reminders()).toHaveLength(1);
      expect(reminders()[0]).toMatchObject({ level: 40, reason: expect.any(String), failing_ms: FAILING_REMINDER_MS });
      expect(reminders()[0]!.failed_ticks).toBeGreaterThan(30);
      expect(reminders()[0]).not.toHaveProperty('err');
      expect(lines).toHaveLength(2);

      // The database is back: one line says so, then quiet again.
      vi.setSystemTime(Date.now() + 30_000);
      await asAdmin(`alter database ${dbName} allow_connections true`);
      await until(() => lines.some((l) => l.msg === 'webhook worker recovered'));
      seen = ok;
      await until(() => ok >= seen + 10);
      expect(lines.slice(2)).toEqual([expect.objectContaining({ level: 30, msg: 'webhook worker recovered', failing_ms: FAILING_REMINDER_MS + 30_000 })]);
      expect(lines.at(-1)!.failed_ticks).toBe(failed);
    } finally {
      await loop.stop();
    }
  });
});
