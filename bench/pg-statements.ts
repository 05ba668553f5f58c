/**
 * PostgreSQL statements and transactions per request, which do not depend on
 * the machine's load: N sends (`/send`, text, existing conversation) and N
 * inbound events (simulator, new contact each, delivered to a webhook), one at
 * a time, counted by pg_stat_statements: the statements the service sent
 * (BEGIN and COMMIT included; not the foreign-key checks the server runs
 * inside them). Background work (the delivery worker's polling) counts too, so
 * the inbound figure is inbound + delivery. Each statement is a round trip
 * unless it was pipelined with others (src/store/pg-pipeline.ts).
 *   npx tsx bench/pg-statements.ts [--n 200] [--detail]
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { startBlueline } from './lib/harness.js';
import { startPostgres } from '../test/support/postgres-server.js';
import { freePort } from '../test/support/ports.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg('--n', 200);
const detail = process.argv.includes('--detail');

interface Row {
  query: string;
  calls: number;
}

async function snapshot(c: pg.Client): Promise<Row[]> {
  const s = await c.query<Row>(
    `select query, calls::int as calls from pg_stat_statements s join pg_database d on d.oid = s.dbid where d.datname = 'postgres'`,
  );
  return s.rows;
}

async function measure(c: pg.Client, label: string, run: () => Promise<void>): Promise<void> {
  // Let the work of the previous measure (webhook deliveries, receipts) finish.
  const settle = () => new Promise((r) => setTimeout(r, 1_000));
  await settle();
  const before = await snapshot(c);
  await run();
  await settle();
  const after = await snapshot(c);
  const calls = new Map<string, number>();
  for (const r of after) calls.set(r.query, (calls.get(r.query) ?? 0) + r.calls);
  for (const r of before) calls.set(r.query, (calls.get(r.query) ?? 0) - r.calls);
  const ours = (q: string) => q.includes('pg_stat_statements');
  const used = [...calls].filter(([q, n]) => n > 0 && !ours(q)).sort((a, b) => b[1] - a[1]);
  const total = used.reduce((s, [, n]) => s + n, 0);
  const begins = used.filter(([q]) => /^begin/i.test(q)).reduce((s, [, n]) => s + n, 0);
  console.log(`${label}: ${(total / N).toFixed(2)} statements per request, of which ${(begins / N).toFixed(2)} explicit transactions (begin + commit each)`);
  if (detail) for (const [q, n] of used) console.log(`  ${(n / N).toFixed(2)}  ${q.replace(/\s+/g, ' ').slice(0, 160)}`);
}

const pgServer = await startPostgres(await freePort(), { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'top' });
const admin = new pg.Client({ connectionString: pgServer.url });
await admin.connect();
await admin.query('create extension if not exists pg_stat_statements');
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(204).end());
});
let delivered = 0;
receiver.on('request', () => delivered++);
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const bl = await startBlueline(await freePort(), { DATABASE_URL: pgServer.url, BLUELINE_ALLOW_PRIVATE_NETWORKS: '1' });
try {
  const adminAuth = { authorization: `Bearer ${bl.demo.admin_token}`, 'content-type': 'application/json' };
  const auth = { authorization: `Bearer ${bl.demo.signing_secret}`, 'content-type': 'application/json' };
  await fetch(`${bl.url}/admin/v1/tenants/demo`, { method: 'PATCH', headers: adminAuth, body: JSON.stringify({ rate_limit: { per_second: 1e6, burst: 1e6 } }) });
  const body = JSON.stringify({ phone: '+14155550142', body: 'benchmark message' });
  const send = async () => {
    const r = await fetch(`${bl.url}/api/v1/send`, { method: 'POST', headers: auth, body });
    if (r.status !== 200) throw new Error(`send: ${r.status} ${await r.text()}`);
  };
  for (let i = 0; i < 20; i++) await send(); // the conversation exists, the statements are named
  await measure(admin, 'send', async () => {
    for (let i = 0; i < N; i++) await send();
  });

  const rx = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  await fetch(`${bl.url}/api/v1/webhook-subscriptions`, { method: 'POST', headers: auth, body: JSON.stringify({ url: rx, events: ['message.received'] }) });
  const inboundUrl = `${bl.url}/admin/v1/lines/${bl.demo.phone_line_ids[0]}/simulate/inbound`;
  let seq = 0;
  const inject = async () => {
    const n = seq++;
    const r = await fetch(inboundUrl, { method: 'POST', headers: adminAuth, body: JSON.stringify({ from: `+1415666${String(n).padStart(4, '0')}`, text: 'benchmark inbound', guid: `count-${n}` }) });
    if (r.status >= 300) throw new Error(`inbound: ${r.status} ${await r.text()}`);
  };
  const injectAndWait = async (count: number) => {
    const target = delivered + count;
    for (let i = 0; i < count; i++) await inject();
    const deadline = Date.now() + 30_000;
    while (delivered < target && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  };
  await injectAndWait(20);
  await measure(admin, 'inbound event (new contact) + its webhook delivery', () => injectAndWait(N));
} finally {
  await bl.stop();
  await admin.end();
  receiver.close();
  await pgServer.stop();
}
