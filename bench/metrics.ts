/**
 * What metrics cost the hot path: the same load with METRICS_TOKEN unset (nothing counted or
 * wrapped) and set (every request counted and timed, every send counted), interleaved so drift
 * on a shared machine hits both alike; plus the per-request recorder timed on its own.
 *   npx tsx bench/metrics.ts
 */
import { performance } from 'node:perf_hooks';
import { load, startBlueline, type LoadResult } from './lib/harness.js';
import { freePort } from '../test/support/ports.js';
import { createMetrics } from '../src/metrics/registry.js';

const ROUNDS = 3;
const TOKEN = 'bench-metrics-token-0123456789';

async function round(label: string, env: Record<string, string>): Promise<LoadResult[]> {
  const b = await startBlueline(await freePort(), env);
  try {
    const admin = { authorization: `Bearer ${b.demo.admin_token}`, 'content-type': 'application/json' };
    await fetch(`${b.url}/admin/v1/tenants/demo`, { method: 'PATCH', headers: admin, body: JSON.stringify({ rate_limit: { per_second: 1e6, burst: 1e6 } }) });
    const auth = { authorization: `Bearer ${b.demo.signing_secret}`, 'content-type': 'application/json' };
    const body = JSON.stringify({ phone: '+14155550142', body: 'benchmark message' });
    if ((await fetch(`${b.url}/api/v1/send`, { method: 'POST', headers: auth, body })).status !== 200) throw new Error('first send failed');
    const send = { url: `${b.url}/api/v1/send`, method: 'POST' as const, headers: auth, body, connections: 50 };
    const list = { url: `${b.url}/api/v1/phone-numbers`, headers: auth, connections: 50 };
    await load('warm-up', { ...send, duration: 2 });
    return [await load(`send ${label}`, { ...send, duration: 5 }), await load(`phone-numbers ${label}`, { ...list, duration: 5 })];
  } finally {
    await b.stop();
  }
}

const off: LoadResult[][] = [];
const on: LoadResult[][] = [];
for (let i = 0; i < ROUNDS; i++) {
  off.push(await round('metrics off', {}));
  on.push(await round('metrics on', { METRICS_TOKEN: TOKEN }));
}
const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const [i, name] of ['send', 'phone-numbers'].entries()) {
  const a = median(off.map((r) => r[i]!.rps));
  const b = median(on.map((r) => r[i]!.rps));
  const p99a = median(off.map((r) => r[i]!.p99));
  const p99b = median(on.map((r) => r[i]!.p99));
  console.log(`${name.padEnd(14)} off ${a.toFixed(0).padStart(6)} req/s p99 ${p99a} ms | on ${b.toFixed(0).padStart(6)} req/s p99 ${p99b} ms | on/off ${(b / a).toFixed(3)}`);
}

// The recorder alone: what one request pays in the onResponse hook.
const metrics = createMetrics();
const record = metrics.httpRoute('/api/v1/send');
const N = 1_000_000;
for (let i = 0; i < 10_000; i++) record('POST', 200, 1.5);
const t0 = performance.now();
for (let i = 0; i < N; i++) record('POST', 200, 1.5);
console.log(`recorder: ${(((performance.now() - t0) * 1e6) / N).toFixed(0)} ns per request`);
process.exit(0); // the default process metrics keep observers open
