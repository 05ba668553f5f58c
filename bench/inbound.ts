/**
 * Inbound → webhook end to end through the simulator, against the node:http
 * baseline in the same run: throughput at full speed, inject→arrival latency
 * at a fixed rate, and fan-out to concurrent SSE streams.
 * Targets (SQLite): ≥ 2,000 events/s delivered; p99 < 100 ms at 1,000 events/s;
 * 500 SSE streams all receive an event with p99 < 200 ms.
 *   npx tsx bench/inbound.ts [--postgres] [--quick]
 */
import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { reportPostgresRatio, startBlueline } from './lib/harness.js';
import { startPostgres } from '../test/support/postgres-server.js';
import { freePort } from '../test/support/ports.js';

const quick = process.argv.includes('--quick');
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))] ?? NaN;
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function post(url: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body) }, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function scenario(label: string, env: Record<string, string>) {
  const arrivals = new Map<string, number>();
  const receiver = http.createServer((req, res) => {
    arrivals.set(String(req.headers['x-webhook-event-id']), performance.now());
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const rxUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const bl = await startBlueline(await freePort(), { BLUELINE_ALLOW_PRIVATE_NETWORKS: '1', ...env });
  try {
    const admin = { authorization: `Bearer ${bl.demo.admin_token}`, 'content-type': 'application/json' };
    const tenantAuth = { authorization: `Bearer ${bl.demo.signing_secret}`, 'content-type': 'application/json' };
    await post(`${bl.url}/api/v1/webhook-subscriptions`, tenantAuth, JSON.stringify({ url: rxUrl, events: ['message.received'] }));
    const inboundUrl = `${bl.url}/admin/v1/lines/${bl.demo.phone_line_ids[0]}/simulate/inbound`;
    let seq = 0;
    const inject = (guid: string) => post(inboundUrl, admin, JSON.stringify({ from: `+1415555${String(seq++ % 10000).padStart(4, '0')}`, text: 'benchmark inbound', guid }));

    // 1. Full speed: N injections from 32 concurrent senders; time until all arrived. A warm-up
    //    batch first, untimed, so that the figure is the service's speed, not its JIT's warm-up.
    const fullSpeed = async (prefix: string, n: number) => {
      const t0 = performance.now();
      let next = 0;
      await Promise.all(Array.from({ length: 32 }, async () => {
        while (next < n) await inject(`${prefix}-${next++}`);
      }));
      const arrived = () => [...arrivals.keys()].filter((k) => k.includes(`${prefix}-`)).length;
      while (arrived() < n && performance.now() - t0 < 120_000) await new Promise((r) => setTimeout(r, 20));
      return performance.now() - t0;
    };
    const warmN = quick ? 500 : 1000;
    const coldRate = warmN / ((await fullSpeed('warm', warmN)) / 1000);
    const N = quick ? 1000 : 8000;
    const fullMs = await fullSpeed('full', N);
    const rate = N / (fullMs / 1000);

    // 2. Fixed rate: 1,000 events/s for a few seconds; inject→arrival latency.
    const seconds = quick ? 2 : 4;
    const sentAt = new Map<string, number>();
    const pending: Promise<number>[] = [];
    const start = performance.now();
    for (let i = 0; i < 1000 * seconds; i++) {
      const due = start + i; // one per millisecond
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const guid = `rate-${i}`;
      sentAt.set(`imessage:msg:${guid}`, performance.now());
      pending.push(inject(guid));
    }
    await Promise.all(pending);
    const deadline = performance.now() + 30_000;
    while ([...sentAt.keys()].some((k) => !arrivals.has(k)) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const latencies = [...sentAt].filter(([k]) => arrivals.has(k)).map(([k, t]) => arrivals.get(k)! - t);

    // 3. SSE fan-out: S streams, one event, time until each stream has it.
    const S = quick ? 100 : 500;
    const got: number[] = [];
    let marker = '';
    const streams = await Promise.all(Array.from({ length: S }, () => new Promise<http.ClientRequest>((resolve) => {
      const req = http.get(`${bl.url}/api/v1/events/stream`, { headers: { authorization: tenantAuth.authorization, 'x-service-tenant': bl.demo.tenant }, agent: false }, (res) => {
        let seen = false;
        res.on('data', (d: Buffer) => {
          if (!seen && marker && d.toString().includes(marker)) {
            seen = true;
            got.push(performance.now());
          }
        });
        resolve(req);
      });
    })));
    await new Promise((r) => setTimeout(r, 300));
    marker = 'sse-fanout-marker';
    const sseStart = performance.now();
    await post(inboundUrl, admin, JSON.stringify({ from: '+14155550000', text: marker, guid: marker }));
    while (got.length < S && performance.now() - sseStart < 10_000) await new Promise((r) => setTimeout(r, 5));
    for (const s of streams) s.destroy();
    const sseLat = got.map((t) => t - sseStart);
    return { label, rate, coldRate, latencies, lost: sentAt.size - latencies.length, sse: { streams: S, received: got.length, p50: pct(sseLat, 50), p99: pct(sseLat, 99) } };
  } finally {
    receiver.closeAllConnections();
    receiver.close();
    await bl.stop();
  }
}

// Baseline: plain node:http receiving the same kind of small JSON POST.
const baseServer = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(202).end('{"ok":true}'));
});
await new Promise<void>((r) => baseServer.listen(0, '127.0.0.1', r));
const base = await autocannon({
  url: `http://127.0.0.1:${(baseServer.address() as AddressInfo).port}/`,
  method: 'POST',
  body: JSON.stringify({ from: '+14155550000', text: 'benchmark inbound', guid: 'x' }),
  headers: { 'content-type': 'application/json' },
  connections: 32,
  duration: 4,
});
baseServer.close();

const results = [await scenario('sqlite', {})];
if (process.argv.includes('--postgres')) {
  const pg = await startPostgres(await freePort());
  try {
    results.push(await scenario('postgres', { DATABASE_URL: pg.url }));
  } finally {
    await pg.stop();
  }
}
console.log(`machine: ${os.cpus().length} cores, node ${process.version}`);
console.log(`node:http baseline (POST, 32 connections): ${base.requests.average.toFixed(0)} req/s`);
for (const r of results) {
  console.log(`[${r.label}] full speed: ${r.rate.toFixed(0)} events/s delivered (ratio ${(r.rate / base.requests.average).toFixed(3)} of baseline req/s)  ${r.rate >= 2000 ? 'meets' : 'MISSES'} ≥ 2000`);
  console.log(`[${r.label}]   (the untimed warm-up batch, from a cold start: ${r.coldRate.toFixed(0)} events/s)`);
  console.log(`[${r.label}] at 1000/s: inject→arrival p50 ${pct(r.latencies, 50).toFixed(1)} ms, p99 ${pct(r.latencies, 99).toFixed(1)} ms, lost ${r.lost}  ${pct(r.latencies, 99) < 100 ? 'meets' : 'MISSES'} p99 < 100 ms`);
  console.log(`[${r.label}] SSE: ${r.sse.received}/${r.sse.streams} streams got the event, p50 ${r.sse.p50.toFixed(1)} ms, p99 ${r.sse.p99.toFixed(1)} ms  ${r.sse.received === r.sse.streams && r.sse.p99 < 200 ? 'meets' : 'MISSES'} p99 < 200 ms`);
}
const [sqliteRun, postgresRun] = results;
if (sqliteRun && postgresRun) reportPostgresRatio('full speed', postgresRun.rate, sqliteRun.rate);
