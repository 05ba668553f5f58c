/**
 * Authenticated GET /api/v1/phone-numbers (bearer and HMAC) against a plain
 * node:http baseline in the same run. Target: ratio ≥ 0.5, p99 < 25 ms.
 *   npx tsx bench/phone-numbers.ts [--db postgres://…]
 */
import { createHmac } from 'node:crypto';
import { load, report, startBaseline, startBlueline } from './lib/harness.js';

const dbArg = process.argv.indexOf('--db');
const databaseUrl = dbArg > 0 ? process.argv[dbArg + 1] : undefined;

const blueline = await startBlueline(18787, { ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}), ...(process.env.BENCH_LOG_REQUESTS ? { BLUELINE_LOG_REQUESTS: process.env.BENCH_LOG_REQUESTS } : {}) });
const path = '/api/v1/phone-numbers';
const sample = await (await fetch(blueline.url + path, { headers: { authorization: `Bearer ${blueline.demo.signing_secret}` } })).text();
const baseline = await startBaseline(18788, sample);
try {
  const ts = Math.floor(Date.now() / 1000);
  const sig = createHmac('sha256', blueline.demo.signing_secret).update(`${ts}.`).digest('hex');
  const kind = databaseUrl ? 'postgres' : 'sqlite';
  const bearerOpts = { url: blueline.url + path, headers: { authorization: `Bearer ${blueline.demo.signing_secret}` }, server: blueline.child };
  const hmacOpts = { url: blueline.url + path, headers: { 'x-service-signature': `v1,${ts},${sig}`, 'x-service-tenant': blueline.demo.tenant }, server: blueline.child };
  // A fresh process speeds up for its first ~10 s (JIT tiering, heap sizing): warm both paths,
  // then measure.
  await load('warm-up', { url: baseline.url, duration: 3 });
  await load('warm-up', { ...bearerOpts, duration: 5 });
  await load('warm-up', { ...hmacOpts, duration: 5 });

  // Three rounds, rotating which of baseline, bearer and HMAC goes first; each keeps its best
  // run. Noise on 2 shared cores only ever slows a run down, and a baseline measured once
  // at a lucky or unlucky moment would skew every ratio.
  type Run = Awaited<ReturnType<typeof load>>;
  const runs = { baseline: [] as Run[], bearer: [] as Run[], hmac: [] as Run[] };
  const kinds = ['baseline', 'bearer', 'hmac'] as const;
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      const k = kinds[(i + j) % 3]!;
      const opts = k === 'baseline' ? { url: baseline.url, server: baseline.child } : k === 'bearer' ? bearerOpts : hmacOpts;
      runs[k].push(await load(k === 'baseline' ? 'node:http baseline' : `phone-numbers ${k} (${kind})`, { ...opts, duration: 5 }));
    }
  }
  const best = (xs: Run[]) => xs.reduce((a, b) => (b.rps > a.rps ? b : a));
  const base = best(runs.baseline);
  console.log(`\nmachine: ${(await import('node:os')).cpus().length} cores, node ${process.version}`);
  report(base, [best(runs.bearer), best(runs.hmac)], { minRatio: 0.5, maxP99Ms: 25 });
} finally {
  await baseline.stop();
  await blueline.stop();
}
