/**
 * `/send` on two builds, in alternating rounds: for judging a change on a host whose speed drifts
 * (a run's baseline can move by a third within the hour, so two separate runs of send.ts compare
 * the host as much as the code). Each round starts each build's service on a fresh data dir.
 *   git worktree add --detach /tmp/before <commit> && ln -s "$PWD/node_modules" /tmp/before/node_modules
 *   (cd /tmp/before && npx tsc -p tsconfig.build.json)
 *   npx tsx bench/ab.ts /tmp/before [--rounds 4] [--seconds 8] [--postgres]
 * The other tree needs a built dist/ and a harness that honours BENCH_NO_BUILD (e2fdaa4 or later;
 * an older one builds its own tree first, which needs its console/node_modules too).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { load, repoRoot, type LoadResult } from './lib/harness.js';
import { startPostgres } from '../test/support/postgres-server.js';
import { freePort } from '../test/support/ports.js';

const args = process.argv.slice(2);
const option = (name: string, dflt: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const other = args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
if (!other) throw new Error('usage: npx tsx bench/ab.ts <other checkout> [--rounds N] [--seconds S] [--postgres]');
const rounds = option('--rounds', 4);
const seconds = option('--seconds', 8);
const roots = [path.resolve(other), repoRoot];

// Both trees are measured as built: this one is built here once, the other must be already.
process.env.BENCH_NO_BUILD = '1';
execFileSync('npm', ['run', 'build', '--silent'], { cwd: repoRoot, stdio: 'inherit' });

const withPostgres = args.includes('--postgres');
const results = new Map<string, LoadResult[]>(roots.map((r) => [r, []]));
for (let round = 1; round <= rounds; round++) {
  for (const root of roots) {
    // Each tree's own harness: its service starts from its own dist/.
    const { startSendTarget } = (await import(path.join(root, 'bench/lib/send-target.ts'))) as typeof import('./lib/send-target.js');
    // A fresh PostgreSQL server per run, as SQLite gets a fresh file: no run inherits another's tables.
    const pg = withPostgres ? await startPostgres(await freePort()) : undefined;
    const target = await startSendTarget(await freePort(), pg ? { DATABASE_URL: pg.url } : {}).catch(async (err: unknown) => {
      await pg?.stop();
      throw err;
    });
    try {
      await load('warm-up', { ...target.request, duration: 2, connections: 50 });
      const r = await load(root, { ...target.request, duration: seconds, connections: 50 });
      results.get(root)!.push(r);
      const perSend = r.serverLoopCores === undefined ? '' : `, ${((1e6 * r.serverLoopCores) / r.rps).toFixed(0)} µs main-thread CPU per send`;
      console.log(`round ${round} ${root}: ${Math.round(r.rps)} req/s, p99 ${r.p99.toFixed(1)} ms${perSend}`);
    } finally {
      await target.proc.stop();
      await pg?.stop();
    }
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const [a, b] = roots.map((root) => {
  const rps = results.get(root)!.map((x) => x.rps);
  const m = median(rps);
  console.log(`${root}: ${rps.map(Math.round).join(' / ')} req/s, median ${Math.round(m)}`);
  return m;
});
console.log(`this tree against the other: median ${b! >= a! ? '+' : ''}${(((b! - a!) / a!) * 100).toFixed(0)}%`);
