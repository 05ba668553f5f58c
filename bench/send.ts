/**
 * POST /api/v1/send (text, existing conversation, through the simulator) at
 * concurrency 50 with the rate limit lifted, against the node:http baseline
 * in the same run. Target: ratio ≥ 0.25, p99 < 50 ms.
 *   npx tsx bench/send.ts            # SQLite
 *   npx tsx bench/send.ts --postgres # also a throwaway PostgreSQL server
 */
import { load, report, startBaseline, startBlueline, type LoadResult } from './lib/harness.js';
import { startPostgres } from '../test/support/postgres-server.js';
import { freePort } from '../test/support/ports.js';

const sendBody = JSON.stringify({ phone: '+14155550142', body: 'benchmark message' });

async function measure(label: string, env: Record<string, string>): Promise<LoadResult> {
  const blueline = await startBlueline(await freePort(), env);
  try {
    const admin = { authorization: `Bearer ${blueline.demo.admin_token}`, 'content-type': 'application/json' };
    await fetch(`${blueline.url}/admin/v1/tenants/demo`, { method: 'PATCH', headers: admin, body: JSON.stringify({ rate_limit: { per_second: 1e6, burst: 1e6 } }) });
    const auth = { authorization: `Bearer ${blueline.demo.signing_secret}`, 'content-type': 'application/json' };
    const body = sendBody;
    const first = await fetch(`${blueline.url}/api/v1/send`, { method: 'POST', headers: auth, body });
    if (first.status !== 200) throw new Error(`first send failed: ${first.status} ${await first.text()}`);
    const opts = { url: `${blueline.url}/api/v1/send`, method: 'POST' as const, headers: auth, body, connections: 50, server: blueline.child };
    await load('warm-up', { ...opts, duration: 2 });
    return await load(label, opts);
  } finally {
    await blueline.stop();
  }
}

const withPostgres = process.argv.includes('--postgres');
// The baseline gets the same request (POST, headers, body) as /send: the transport's ceiling for
// this load, not a bodiless GET, which costs the load generator and the parser less.
const request = { method: 'POST' as const, headers: { authorization: 'Bearer sk_baseline', 'content-type': 'application/json' }, body: sendBody };
const baseline = await startBaseline(await freePort(), JSON.stringify({ status: 'sent', message_id: 'msg_01JABCDEFGHJKMNPQRSTVWXYZ0', lead_id: '6f1c6b43-8a57-4c53-9b0a-2f5b0e0f6a11', chat_id: '6f1c6b43-8a57-4c53-9b0a-2f5b0e0f6a11', lead_created: false, convo_id: '6f1c6b43-8a57-4c53-9b0a-2f5b0e0f6a12', phone_line_id: '6f1c6b43-8a57-4c53-9b0a-2f5b0e0f6a13' }));
try {
  await load('warm-up', { url: baseline.url, ...request, duration: 2, connections: 50 });
  const base = await load('node:http baseline (same POST)', { url: baseline.url, ...request, connections: 50, server: baseline.child });
  const results = [await measure('send text (sqlite)', {})];
  if (withPostgres) {
    const pg = await startPostgres(await freePort());
    try {
      results.push(await measure('send text (postgres)', { DATABASE_URL: pg.url }));
    } finally {
      await pg.stop();
    }
  }
  console.log(`\nmachine: ${(await import('node:os')).cpus().length} cores, node ${process.version}, 50 connections`);
  report(base, results, { minRatio: 0.25, maxP99Ms: 50 });
} finally {
  await baseline.stop();
}
