/**
 * CPU per inbound event, by process, SQLite against PostgreSQL: the same load as
 * inbound.ts's full-speed phase (simulator inbound from 32 concurrent senders, each event
 * delivered to a loopback webhook), N events after a warm-up, and the CPU time the service,
 * the PostgreSQL server processes and this process (load generator and receiver) used
 * meanwhile, from /proc. On a shared machine throughput swings with other work; CPU per
 * event swings much less, and says what each store costs the machine.
 *   npx tsx bench/inbound-cpu.ts [--n 4000]
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { execFileSync } from 'node:child_process';
import { startBlueline } from './lib/harness.js';
import { startPostgres } from '../test/support/postgres-server.js';
import { freePort } from '../test/support/ports.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg('--n', 4000);

/** utime + stime of a process, in seconds (0 once it is gone). */
function cpuOf(pid: number | string): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}
const postgresCpu = () =>
  execFileSync('sh', ['-c', 'pgrep -x postgres || true']).toString().trim().split('\n').filter(Boolean).reduce((s, p) => s + cpuOf(p), 0);

async function measure(label: string, env: Record<string, string>) {
  let delivered = 0;
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      delivered++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const bl = await startBlueline(await freePort(), { BLUELINE_ALLOW_PRIVATE_NETWORKS: '1', ...env });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  try {
    const headers = { authorization: `Bearer ${bl.demo.admin_token}`, 'content-type': 'application/json' };
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    await fetch(`${bl.url}/api/v1/webhook-subscriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bl.demo.signing_secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: hook, events: ['message.received'] }),
    });
    const url = `${bl.url}/admin/v1/lines/${bl.demo.phone_line_ids[0]}/simulate/inbound`;
    const post = (body: string) =>
      new Promise<void>((resolve, reject) => {
        const q = http.request(url, { method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body) }, agent }, (res) => {
          res.resume();
          res.on('end', () => resolve());
        });
        q.on('error', reject);
        q.end(body);
      });
    let seq = 0;
    const run = async (n: number) => {
      const start = delivered;
      let next = 0;
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (next++ < n) {
            const i = seq++;
            await post(JSON.stringify({ from: `+1415777${String(i % 10000).padStart(4, '0')}`, text: 'benchmark inbound', guid: `cpu-${i}` }));
          }
        }),
      );
      while (delivered - start < n && performance.now() - t0 < 120_000) await new Promise((r) => setTimeout(r, 10));
      return n / ((performance.now() - t0) / 1000);
    };
    await run(1000); // warm-up
    const [svc0, pg0, me0] = [cpuOf(bl.child.pid!), postgresCpu(), process.cpuUsage()];
    const rate = await run(N);
    const me = process.cpuUsage(me0);
    const perEvent = (s: number) => ((s * 1e6) / N).toFixed(0);
    console.log(
      `[${label}] ${rate.toFixed(0)} events/s; CPU µs per event: service ${perEvent(cpuOf(bl.child.pid!) - svc0)}, ` +
        `PostgreSQL ${perEvent(postgresCpu() - pg0)}, load generator + receiver ${perEvent((me.user + me.system) / 1e6)}`,
    );
  } finally {
    receiver.close();
    await bl.stop();
  }
}

await measure('sqlite', {});
const pg = await startPostgres(await freePort());
try {
  await measure('postgres', { DATABASE_URL: pg.url });
} finally {
  await pg.stop();
}
