/**
 * HMAC without the tenant header: what identifying a single-tenant account from its signature
 * costs per request, with 1,000 single-tenant accounts (SQLite store, in process: this measures
 * the authentication step itself, not HTTP). Prints µs per request, for a signed ~200-byte body:
 * with the tenant header (the baseline), without it by one account signing repeatedly, by 50
 * accounts in turn, and with a wrong signature (every candidate tried: also the cost for an
 * account whose key has not been used for a while); and a bodyless GET.
 *   npx tsx bench/hmac-identify.ts [accounts]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHmac, randomBytes } from 'node:crypto';
import { openStore } from '../src/store/index.js';
import { systemClock } from '../src/clock.js';
import { accountsService } from '../src/domain/accounts-tenants/service.js';
import { authenticator } from '../src/domain/accounts-tenants/auth.js';
import { IDENTIFY_LIMITS } from '../src/domain/accounts-tenants/signature-owner.js';

const ACCOUNTS = Number(process.argv[2] ?? 1_000);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-bench-hmac-'));
const store = await openStore({ sqlitePath: path.join(dir, 'bench.sqlite'), masterKey: randomBytes(32), databaseUrl: undefined });
const clock = systemClock();
// The search's own cost: without the shared budget, which would answer most of the wrong signatures 1007.
const auth = authenticator({ store, clock, brand: 'service', identifyLimits: { ...IDENTIFY_LIMITS, budgetPerSecond: Infinity, budgetBurst: Infinity } });
const accounts = accountsService({ store, clock, secretOverlapMs: 0, onChange: auth.invalidate });

try {
  const signers: { secret: string; slug: string }[] = [];
  for (let i = 0; i < ACCOUNTS; i++) {
    const { account, signingSecret } = await accounts.createAccount({ name: `Bench ${i}` });
    const slug = `bench-${i}`;
    await accounts.createTenant({ account_id: account.id, slug });
    signers.push({ secret: signingSecret, slug });
  }
  const body = Buffer.from(JSON.stringify({ phone: '+14155550100', body: 'x'.repeat(150), idempotency_key: 'bench-0001' }));
  const sign = (secret: string, bytes: Buffer) => {
    const ts = Math.floor(Date.now() / 1000);
    return `v1,${ts},${createHmac('sha256', secret).update(`${ts}.`).update(bytes).digest('hex')}`;
  };
  const request = (signature: string, rawBody: Buffer, tenantSlug?: string) =>
    auth.authenticate({ signature, rawBody, tenantSlug, requireTenantHeader: false, bearerOnly: false });

  async function measure(label: string, run: (i: number) => unknown, n: number) {
    const once = async (i: number) => {
      try {
        await run(i);
      } catch {
        // 2004 for the wrong signature: that is the case being measured.
      }
    };
    for (let i = 0; i < Math.min(200, n); i++) await once(i);
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) await once(i);
    const us = Number(process.hrtime.bigint() - start) / 1_000 / n;
    console.log(`${label.padEnd(66)} ${us.toFixed(1).padStart(9)} µs/request`);
    return us;
  }

  console.log(`${ACCOUNTS} single-tenant accounts, body ${body.length} bytes, node ${process.version}, ${os.cpus().length} cores\n`);
  const one = signers[ACCOUNTS - 1]!;
  const sigOne = sign(one.secret, body);
  const named = await measure('with x-service-tenant (that account\'s secrets only)', () => request(sigOne, body, one.slug), 20_000);
  await measure('no tenant header, one account signing (found first after its first)', () => request(sigOne, body), 20_000);
  const active = signers.slice(0, 50).map((s) => sign(s.secret, body));
  await measure('no tenant header, 50 accounts signing in turn', (i) => request(active[i % 50]!, body), 5_000);
  const wrong = sign('not-a-secret', body);
  const all = await measure(`no tenant header, wrong signature: 2004 (tries all ${ACCOUNTS}; = a cold signer)`, () => request(wrong, body), 1_000);
  const get = sign(one.secret, Buffer.alloc(0));
  await measure('no tenant header, bodyless GET (remembered per signature header)', () => request(get, Buffer.alloc(0)), 20_000);
  console.log(`\nper candidate tried: ${((all - named) / ACCOUNTS).toFixed(2)} µs`);
  // One refresh of the candidate cache (every 2 s while such requests arrive): a query, and a decrypt and key per secret.
  auth.invalidate();
  const t0 = process.hrtime.bigint();
  await request(sigOne, body);
  console.log(`candidate cache load (${ACCOUNTS} secrets, decrypted and prepared) plus one search: ${(Number(process.hrtime.bigint() - t0) / 1e6).toFixed(1)} ms`);
} finally {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
