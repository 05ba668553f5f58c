/**
 * POST /api/v1/send (text, existing conversation, through the simulator) at
 * concurrency 50 with the rate limit lifted, against the node:http baseline
 * in the same run. Target: ratio ≥ 0.25, p99 < 50 ms.
 *   npx tsx bench/send.ts            # SQLite
 *   npx tsx bench/send.ts --postgres # also a throwaway PostgreSQL server
 *   npx tsx bench/send.ts --postgres --socket # reached through its Unix socket instead of loopback TCP
 *   npx tsx bench/send.ts [--postgres] --rounds 3 # baseline, SQLite (and PostgreSQL) in turn, N times: per-round ratios and their medians
 * With rounds, each ratio compares runs a minute apart at most: on a host whose speed moves by a
 * third within minutes, two runs far apart compare the host as much as the server.
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

/** The send on a throwaway PostgreSQL server of its own (no run inherits another's tables). */
async function measurePostgres(socket: boolean): Promise<LoadResult> {
  const pg = await startPostgres(await freePort());
  try {
    return await measure(socket ? 'send text (postgres, socket)' : 'send text (postgres)', { DATABASE_URL: socket ? pg.socketUrl : pg.url });
  } finally {
    await pg.stop();
  }
}

const args = process.argv.slice(2);
const withPostgres = args.includes('--postgres');
const socket = args.includes('--socket');
const rounds = args.includes('--rounds') ? Number(args[args.indexOf('--rounds') + 1]) : 1;
if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds takes a whole number ≥ 1');

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ratios = { sqlite: [] as number[], postgres: [] as number[] };
const baseline = await startSendBaseline(await freePort());
try {
  await load('warm-up', { ...baseline.request, duration: 2, connections: 50 });
  for (let round = 1; round <= rounds; round++) {
    const base = await load('node:http baseline (same POST)', { ...baseline.request, connections: 50 });
    const results = [await measure('send text (sqlite)', {})];
    if (withPostgres) results.push(await measurePostgres(socket));
    if (rounds > 1) console.log(`\nround ${round} of ${rounds}`);
    console.log(`\nmachine: ${(await import('node:os')).cpus().length} cores, node ${process.version}, 50 connections`);
    report(base, results, { minRatio: 0.25, maxP99Ms: 50 });
    const [sqlite, postgres] = results;
    ratios.sqlite.push(sqlite!.rps / base.rps);
    if (sqlite && postgres) {
      reportPostgresRatio('send', postgres.rps, sqlite.rps);
      ratios.postgres.push(postgres.rps / sqlite.rps);
    }
  }
  if (rounds > 1) {
    const line = (what: string, xs: number[]) => console.log(`${what}: ${xs.map((x) => x.toFixed(2)).join(' / ')}, median ${median(xs).toFixed(2)}`);
    console.log(`\nover ${rounds} rounds:`);
    line('sqlite / node:http (target ≥ 0.25)', ratios.sqlite);
    if (withPostgres) line('postgres / sqlite (target ≥ 0.5)', ratios.postgres);
  }
} finally {
  await baseline.proc.stop();
}
