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
  // warm-up, so JIT and caches are equal for both
  await load('warm-up', { url: baseline.url, duration: 2 });
  await load('warm-up', { url: blueline.url + path, duration: 2, headers: { authorization: `Bearer ${blueline.demo.signing_secret}` } });

  const base = await load('node:http baseline', { url: baseline.url });
  const ts = Math.floor(Date.now() / 1000);
  const sig = createHmac('sha256', blueline.demo.signing_secret).update(`${ts}.`).digest('hex');
  const hmac = await load(`phone-numbers HMAC (${databaseUrl ? 'postgres' : 'sqlite'})`, {
    url: blueline.url + path,
    headers: { 'x-service-signature': `v1,${ts},${sig}`, 'x-service-tenant': blueline.demo.tenant },
  });
  const bearer = await load(`phone-numbers bearer (${databaseUrl ? 'postgres' : 'sqlite'})`, {
    url: blueline.url + path,
    headers: { authorization: `Bearer ${blueline.demo.signing_secret}` },
  });
  console.log(`\nmachine: ${(await import('node:os')).cpus().length} cores, node ${process.version}`);
  report(base, [bearer, hmac], { minRatio: 0.5, maxP99Ms: 25 });
} finally {
  await baseline.stop();
  await blueline.stop();
}
