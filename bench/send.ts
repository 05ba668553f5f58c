/**
 * POST /api/v1/send (text, existing conversation, through the simulator) at
 * concurrency 50 with the rate limit lifted, against the node:http baseline
 * in the same run. Target: ratio ≥ 0.25, p99 < 50 ms.
 *   npx tsx bench/send.ts            # SQLite
 *   npx tsx bench/send.ts --postgres # also a throwaway PostgreSQL server
 *   npx tsx bench/send.ts --postgres --socket # reached through its Unix socket instead of loopback TCP
 */
import { load, report, reportPostgresRatio, type LoadResult } from './lib/harness.js';
import { startSendBaseline, startSendTarget } from './lib/send-target.js';
import { startPostgres } from '../test/support/postgres-server.js';
import { freePort } from '../test/support/ports.js';

async function measure(label: string, env: Record<string, string>): Promise<LoadResult> {
  const target = await startSendTarget(await freePort(), env);
  try {
    await load('warm-up', { ...target.request, duration: 2, connections: 50 });
    return await load(label, { ...target.request, connections: 50 });
  } finally {
    await target.proc.stop();
  }
}

const withPostgres = process.argv.includes('--postgres');
const baseline = await startSendBaseline(await freePort());
try {
  await load('warm-up', { ...baseline.request, duration: 2, connections: 50 });
  const base = await load('node:http baseline (same POST)', { ...baseline.request, connections: 50 });
  const results = [await measure('send text (sqlite)', {})];
  if (withPostgres) {
    const pg = await startPostgres(await freePort());
    try {
      const socket = process.argv.includes('--socket');
      results.push(await measure(socket ? 'send text (postgres, socket)' : 'send text (postgres)', { DATABASE_URL: socket ? pg.socketUrl : pg.url }));
    } finally {
      await pg.stop();
    }
  }
  console.log(`\nmachine: ${(await import('node:os')).cpus().length} cores, node ${process.version}, 50 connections`);
  report(base, results, { minRatio: 0.25, maxP99Ms: 50 });
  const [sqlite, postgres] = results;
  if (sqlite && postgres) reportPostgresRatio('send', postgres.rps, sqlite.rps);
} finally {
  await baseline.proc.stop();
}
