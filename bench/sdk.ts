/**
 * POST /api/v1/send through @blueline/sdk against raw fetch: the same requests (text into an
 * existing conversation, a fresh idempotency key each, bearer auth) at the same concurrency,
 * alternating rounds, against one service process. Target: SDK overhead < 5% of throughput.
 *   npx tsx bench/sdk.ts [--seconds 5] [--concurrency 32]
 */
import { randomUUID } from 'node:crypto';
import { Blueline } from '@blueline/sdk';
import { startBlueline } from './lib/harness.js';
import { freePort } from '../test/support/ports.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const seconds = arg('seconds', 5);
const concurrency = arg('concurrency', 32);
const PHONE = '+14155550142';

const blueline = await startBlueline(await freePort());
try {
  const admin = { authorization: `Bearer ${blueline.demo.admin_token}`, 'content-type': 'application/json' };
  await fetch(`${blueline.url}/admin/v1/tenants/demo`, { method: 'PATCH', headers: admin, body: JSON.stringify({ rate_limit: { per_second: 1e6, burst: 1e6 } }) });
  const client = new Blueline({ baseUrl: blueline.url, secret: blueline.demo.signing_secret, tenant: blueline.demo.tenant });
  await client.messages.send({ phone: PHONE, body: 'first touch' });

  const url = `${blueline.url}/api/v1/send`;
  const headers = { accept: 'application/json', authorization: `Bearer ${blueline.demo.signing_secret}`, 'x-service-tenant': blueline.demo.tenant, 'content-type': 'application/json' };
  const raw = async () => {
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ phone: PHONE, body: 'benchmark message', idempotency_key: `raw_${randomUUID()}` }) });
    const body = (await res.json()) as { status: string };
    if (body.status !== 'sent') throw new Error(`raw send failed: ${JSON.stringify(body)}`);
  };
  const sdk = async () => {
    await client.messages.send({ phone: PHONE, body: 'benchmark message' });
  };

  async function round(label: string, one: () => Promise<void>, secs: number): Promise<number> {
    let done = 0;
    const end = Date.now() + secs * 1000;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (Date.now() < end) {
          await one();
          done++;
        }
      }),
    );
    const rate = done / secs;
    if (label) console.log(`${label.padEnd(10)} ${rate.toFixed(0).padStart(7)} sends/s`);
    return rate;
  }

  await round('', raw, 2); // warm-up, both paths
  await round('', sdk, 2);
  const rates = { raw: [] as number[], sdk: [] as number[] };
  for (let i = 0; i < 3; i++) {
    rates.raw.push(await round('raw fetch', raw, seconds));
    rates.sdk.push(await round('sdk', sdk, seconds));
  }
  const sum = (a: number[]) => a.reduce((x, y) => x + y, 0);
  const ratio = sum(rates.sdk) / sum(rates.raw);
  console.log(`\nconcurrency ${concurrency}, ${seconds} s rounds ×3: sdk/raw = ${ratio.toFixed(3)} (overhead ${((1 - ratio) * 100).toFixed(1)}%; target < 5%)`);
} finally {
  await blueline.stop();
}
