/**
 * Which figure measures the server? The same two targets as bench/send.ts (the
 * node:http baseline and POST /api/v1/send on SQLite) loaded by autocannon and
 * by wrk, each run reporting the CPU the server and the load generator used
 * (from /proc) and the TCP connections opened meanwhile; then both clients
 * again with 10 requests pipelined per connection.
 *   npx tsx bench/clients.ts     (needs wrk: apt-get install wrk)
 */
import os from 'node:os';
import { load, type Client, type LoadOptions, type LoadResult } from './lib/harness.js';
import { startSendBaseline, startSendTarget } from './lib/send-target.js';
import { wrkInstalled } from './lib/wrk.js';
import { freePort } from '../test/support/ports.js';

if (!wrkInstalled()) throw new Error('bench/clients.ts compares autocannon with wrk: install wrk first');

const connections = 50;
const baseline = await startSendBaseline(await freePort());
const send = await startSendTarget(await freePort(), {});
const rows: { client: Client; pipelining: number; base: LoadResult; send: LoadResult }[] = [];
try {
  const run = async (label: string, request: LoadOptions, client: Client, pipelining: number) => {
    await load('warm-up', { ...request, client, pipelining, connections, duration: 2 });
    return load(label, { ...request, client, pipelining, connections, duration: 8 });
  };
  for (const pipelining of [1, 10]) {
    for (const client of ['autocannon', 'wrk'] as const) {
      const base = await run('baseline', baseline.request, client, pipelining);
      const sent = await run('send', send.request, client, pipelining);
      rows.push({ client, pipelining, base, send: sent });
    }
  }
} finally {
  await send.proc.stop();
  await baseline.proc.stop();
}

const us = (cores: number | undefined, rps: number) => (cores === undefined ? '?' : ((cores / rps) * 1e6).toFixed(1));
console.log(`machine: ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}, node ${process.version}, ${connections} connections\n`);
console.log('client      pipe target     req/s   p99 ms  server cores  main thread  client cores  server µs/req  loop µs/req  client µs/req  conns opened  ratio  loop-CPU ratio');
for (const r of rows) {
  for (const [name, x] of [['baseline', r.base], ['send', r.send]] as const) {
    console.log(
      [
        r.client.padEnd(11),
        String(r.pipelining).padStart(4),
        name.padEnd(8),
        x.rps.toFixed(0).padStart(8),
        x.p99.toFixed(1).padStart(8),
        (x.serverCores?.toFixed(2) ?? '?').padStart(13),
        (x.serverLoopCores?.toFixed(2) ?? '?').padStart(12),
        x.clientCores.toFixed(2).padStart(13),
        us(x.serverCores, x.rps).padStart(14),
        us(x.serverLoopCores, x.rps).padStart(12),
        us(x.clientCores, x.rps).padStart(14),
        String(x.connectionsOpened).padStart(13),
        name === 'send' ? (r.send.rps / r.base.rps).toFixed(2).padStart(6) : '',
        // What the ratio would be with the server's event loop saturated in both runs: its CPU per baseline request over per send.
        name === 'send' && r.base.serverLoopCores && r.send.serverLoopCores ? (r.base.serverLoopCores / r.base.rps / (r.send.serverLoopCores / r.send.rps)).toFixed(2).padStart(15) : '',
      ].join(' ') + (x.non2xx || x.errors ? `  (non-2xx ${x.non2xx}, errors ${x.errors})` : ''),
    );
  }
}
