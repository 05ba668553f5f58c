import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { openStore } from '../../src/store/index.js';
import { secretBox } from '../../src/store/secret-box.js';
import { ConfigError } from '../../src/config.js';
import { STORE_KINDS, createTestStore, type TestStore } from './../support/stores.js';

const SECRET = 'bl_sk_plaintext-canary-9f3b2c';
const PASSWORD = 'bluebubbles-password-canary-77a1';

describe.each(STORE_KINDS)('store on %s', (kind) => {
  let ts: TestStore;
  beforeAll(async () => {
    ts = await createTestStore(kind);
  });
  afterAll(async () => ts.cleanup());

  const account = (id: string, over: Partial<{ multi_tenant: boolean }> = {}) => ({
    id,
    name: `Account ${id}`,
    multi_tenant: false,
    email_verified: true,
    created_at: 1_000,
    ...over,
  });

  it('finds an account by its secret and returns live secrets in plaintext', async () => {
    await ts.store.accounts.insert(account('acct_a'), { id: 'sec_a1', plain: SECRET });
    expect((await ts.store.accounts.findBySecret(SECRET, 2_000))?.id).toBe('acct_a');
    expect(await ts.store.accounts.findBySecret(SECRET + 'x', 2_000)).toBeUndefined();
    expect(await ts.store.accounts.liveSecrets('acct_a', 2_000)).toEqual([SECRET]);
  });

  it('keeps a rotated secret alive until the overlap ends, newest first', async () => {
    await ts.store.accounts.insert(account('acct_r'), { id: 'sec_r1', plain: 'old-secret' });
    await ts.store.accounts.rotateSecret('acct_r', { id: 'sec_r2', plain: 'new-secret' }, 5_000, 10_000);
    expect(await ts.store.accounts.liveSecrets('acct_r', 9_999)).toEqual(['new-secret', 'old-secret']);
    expect((await ts.store.accounts.findBySecret('old-secret', 9_999))?.id).toBe('acct_r');
    expect(await ts.store.accounts.findBySecret('old-secret', 10_000)).toBeUndefined();
    expect(await ts.store.accounts.liveSecrets('acct_r', 10_000)).toEqual(['new-secret']);
    // A second rotation never extends the first secret's overlap.
    await ts.store.accounts.rotateSecret('acct_r', { id: 'sec_r3', plain: 'newest' }, 6_000, 50_000);
    expect(await ts.store.accounts.liveSecrets('acct_r', 20_000)).toEqual(['newest', 'new-secret']);
  });

  it('rotates only from the current secret when told which, and ends every earlier one when asked', async () => {
    await ts.store.accounts.insert(account('acct_c'), { id: 'sec_c1', plain: 'c-one' });
    expect(await ts.store.accounts.rotateSecret('acct_c', { id: 'sec_c2', plain: 'c-two' }, 5_000, 50_000, { replacing: 'sec_c1' })).toBe(true);
    // sec_c1 is replaced now: a rotation in its name changes nothing.
    expect(await ts.store.accounts.rotateSecret('acct_c', { id: 'sec_c3', plain: 'c-three' }, 6_000, 6_000, { replacing: 'sec_c1', endEarlier: true })).toBe(false);
    expect(await ts.store.accounts.liveSecrets('acct_c', 7_000)).toEqual(['c-two', 'c-one']);
    expect(await ts.store.accounts.secretExpiry('acct_c', 'sec_c1')).toBe(50_000);
    expect(await ts.store.accounts.secretExpiry('acct_c', 'sec_c2')).toBeNull();
    expect(await ts.store.accounts.secretExpiry('acct_a', 'sec_c2')).toBeUndefined();
    // A short overlap for the one replaced leaves the earlier one its own end…
    expect(await ts.store.accounts.rotateSecret('acct_c', { id: 'sec_c4', plain: 'c-four' }, 7_000, 8_000, { replacing: 'sec_c2' })).toBe(true);
    expect(await ts.store.accounts.liveSecrets('acct_c', 9_000)).toEqual(['c-four', 'c-one']);
    // …and an overlap of 0 ends them all.
    expect(await ts.store.accounts.rotateSecret('acct_c', { id: 'sec_c5', plain: 'c-five' }, 10_000, 10_000, { replacing: 'sec_c4', endEarlier: true })).toBe(true);
    expect(await ts.store.accounts.liveSecrets('acct_c', 10_000)).toEqual(['c-five']);
  });

  it('stores tenants with their settings and lines with encrypted driver config', async () => {
    await ts.store.tenants.insert({
      id: 'ten_1',
      account_id: 'acct_a',
      slug: 'acme',
      name: 'Acme',
      timezone: 'America/New_York',
      sending_window: { start: '09:00', end: '17:30' },
      daily_first_touch_cap: 25,
      rate_limit: { per_second: 2.5, burst: 5 },
      status: 'active',
      created_at: 1_000,
    });
    const t = await ts.store.tenants.getBySlug('acme');
    expect(t).toMatchObject({ slug: 'acme', sending_window: { start: '09:00', end: '17:30' }, rate_limit: { per_second: 2.5, burst: 5 } });
    await ts.store.tenants.replace({ ...t!, status: 'suspended' });
    expect((await ts.store.tenants.getById('ten_1'))?.status).toBe('suspended');

    await ts.store.lines.insert({
      id: '6f1c6b43-8a57-4c53-9b0a-2f5b0e0f6a11',
      tenant_id: 'ten_1',
      phone_number: '+14155550100',
      service: 'imessage',
      driver: 'bluebubbles',
      driver_config: { url: 'http://mac.local:1234', password: PASSWORD },
      capabilities: ['imessage', 'send', 'receive'],
      is_active: true,
      created_at: 1_000,
    });
    const lines = await ts.store.lines.listByTenant('ten_1');
    expect(lines).toHaveLength(1);
    expect(lines[0]!.driver_config).toEqual({ url: 'http://mac.local:1234', password: PASSWORD });
    expect(lines[0]!.is_active).toBe(true);
    // The inbound path reads a line with its owning tenant in one query: both exactly as read alone.
    const owned = await ts.store.lines.getWithTenant('6f1c6b43-8a57-4c53-9b0a-2f5b0e0f6a11');
    expect(owned?.tenant).toEqual(await ts.store.tenants.getById('ten_1'));
    expect({ ...owned?.line, driver_config: owned?.line.driver_config }).toEqual({ ...lines[0], driver_config: lines[0]!.driver_config });
    expect(await ts.store.lines.getWithTenant('00000000-0000-4000-8000-000000000000')).toBeUndefined();
  });

  it('never holds a signing secret or a driver password in plaintext', async () => {
    let dump: string;
    if (kind === 'sqlite') {
      // The database file and its WAL, as bytes.
      dump = ['', '-wal'].map((s) => (fs.existsSync(ts.location + s) ? fs.readFileSync(ts.location + s).toString('latin1') : '')).join('');
    } else {
      const c = new pg.Client({ connectionString: ts.location });
      await c.connect();
      const parts: string[] = [];
      for (const table of ['accounts', 'account_secrets', 'tenants', 'phone_lines']) {
        parts.push(JSON.stringify((await c.query(`select * from ${table}`)).rows));
      }
      await c.end();
      dump = parts.join('\n');
    }
    expect(dump).toContain('acme'); // the dump really has the data
    expect(dump).not.toContain(SECRET);
    expect(dump).not.toContain(PASSWORD);
    expect(dump).not.toContain('new-secret');
  });

  it('re-opening runs no migration twice and keeps the data', async () => {
    const again = await openStore({
      ...(kind === 'sqlite' ? { sqlitePath: ts.location } : { databaseUrl: ts.location }),
      masterKey: ts.masterKey,
    });
    expect((await again.accounts.get('acct_a'))?.name).toBe('Account acct_a');
    await again.close();
  });

  it('takes rate-limit tokens: burst first, then refilled over time', async () => {
    const take = (now: number) => ts.store.rateBuckets.takeToken('ten_rate', 2, 3, now);
    expect([await take(10_000), await take(10_000), await take(10_000)]).toEqual([0, 0, 0]);
    expect(await take(10_000)).toBeCloseTo(0.5, 5); // 1 token at 2/s: half a second away
    expect(await take(10_250)).toBeCloseTo(0.25, 5);
    expect(await take(10_500)).toBe(0);
    expect(await take(10_500)).toBeGreaterThan(0);
    // A long pause refills only up to the burst.
    expect([await take(60_000), await take(60_000), await take(60_000)]).toEqual([0, 0, 0]);
    expect(await take(60_000)).toBeGreaterThan(0);
  });

  it('applies receipts in any order without one undoing the other; a failed message stays failed', async () => {
    const lineId = '6f1c6b43-8a57-4c53-9b0a-2f5b0e0f6a11';
    await ts.store.chats.ensureChat({ id: 'chat_rcpt', tenant_id: 'ten_1', is_group: false, lead_id: null, line_id: lineId, convo_id: 'cv_rcpt', chat_key: null, display_name: null, created_at: 1_000 });
    const message = (id: string, guid: string, status: 'sent' | 'failed' = 'sent') => ({
      id, tenant_id: 'ten_1', chat_id: 'chat_rcpt', line_id: lineId, direction: 'outbound' as const, sender_handle: '+14155550100',
      parts: [{ type: 'text' as const, value: 'hi' }], effect: null, status, provider_guid: guid, first_touch: false, error_code: null,
      sent_at: 1_000, delivered_at: null, read_at: null, edited_at: null,
    });
    await ts.store.messages.insert(message('msg_r1', 'g1'));
    await ts.store.messages.insert(message('msg_r2', 'g2', 'failed'));
    const receipt = (guid: string, kind: 'delivered' | 'read', atMs: number) => ts.store.messages.applyReceipts(lineId, kind, [{ guid, atMs }]);
    // Read arrives first, then a late delivered receipt, at once.
    await Promise.all([receipt('g1', 'read', 3_000), receipt('g1', 'delivered', 2_000)]);
    await receipt('g1', 'read', 9_000);
    expect(await ts.store.messages.get('ten_1', 'msg_r1')).toMatchObject({ status: 'read', read_at: 3_000, delivered_at: 3_000 });
    await receipt('g2', 'delivered', 2_000);
    expect(await ts.store.messages.get('ten_1', 'msg_r2')).toMatchObject({ status: 'failed', delivered_at: null });
  });

  it('applies a batch of receipts in one call: each message gets its own time; unknown guids and other lines are untouched', async () => {
    const lineId = '6f1c6b43-8a57-4c53-9b0a-2f5b0e0f6a12';
    await ts.store.chats.ensureChat({ id: 'chat_batch', tenant_id: 'ten_1', is_group: false, lead_id: null, line_id: null, convo_id: 'cv_batch', chat_key: null, display_name: null, created_at: 1_000 });
    const message = (id: string, guid: string, line = lineId, direction: 'outbound' | 'inbound' = 'outbound') => ({
      id, tenant_id: 'ten_1', chat_id: 'chat_batch', line_id: line, direction, sender_handle: '+14155550100',
      parts: [{ type: 'text' as const, value: 'hi' }], effect: null, status: direction === 'inbound' ? ('received' as const) : ('sent' as const), provider_guid: guid,
      first_touch: false, error_code: null, sent_at: 1_000, delivered_at: null, read_at: null, edited_at: null,
    });
    for (let i = 0; i < 5; i++) await ts.store.messages.insert(message(`msg_b${i}`, `gb${i}`));
    await ts.store.messages.insert(message('msg_other_line', 'gb0', 'line-elsewhere'));
    await ts.store.messages.insert(message('msg_inbound', 'gb_in', lineId, 'inbound'));
    const batch = [0, 1, 2, 3, 4].map((i) => ({ guid: `gb${i}`, atMs: 5_000 + i }));
    // A second receipt for gb1 in the same batch, with an earlier time: the first reported counts.
    await ts.store.messages.applyReceipts(lineId, 'delivered', [...batch, { guid: 'gb_unknown', atMs: 1 }, { guid: 'gb_in', atMs: 1 }, { guid: 'gb1', atMs: 4_000 }]);
    await ts.store.messages.applyReceipts(lineId, 'read', batch.slice(0, 2).map((r) => ({ ...r, atMs: r.atMs + 100 })));
    for (let i = 0; i < 5; i++) {
      expect(await ts.store.messages.get('ten_1', `msg_b${i}`)).toMatchObject(
        i < 2 ? { status: 'read', delivered_at: 5_000 + i, read_at: 5_100 + i } : { status: 'delivered', delivered_at: 5_000 + i, read_at: null },
      );
    }
    expect(await ts.store.messages.get('ten_1', 'msg_other_line')).toMatchObject({ status: 'sent', delivered_at: null });
    expect(await ts.store.messages.get('ten_1', 'msg_inbound')).toMatchObject({ status: 'received', delivered_at: null });
  });

  it("settles an event's status from its delivery jobs: any delivered wins, all failed fails, else pending", async () => {
    const ev = (id: string, status: 'pending' | 'dev_inbox') => ({
      id, tenant_id: 'ten_1', type: 'message.received', event_id: `k_${id}`, lead_id: null, convo_id: null, payload: '{}', status,
      dev_inbox: status === 'dev_inbox', delivered_at: null, created_at: 1_000,
    });
    const job = (id: string, eventRef: string) => ({
      id, event_ref: eventRef, subscription_id: `sub_${id}`, tenant_id: 'ten_1', url: 'https://example.com/h', state: 'pending' as const,
      attempts: 0, next_attempt_at: 1_000, lease_until: null, created_at: 1_000,
    });
    const status = async (id: string) => {
      const e = await ts.store.events.eventById(id);
      return { status: e?.status, delivered_at: e?.delivered_at };
    };
    await ts.store.events.insertEvent(ev('evt_s1', 'pending'));
    await ts.store.events.insertJobs([job('job_s1a', 'evt_s1'), job('job_s1b', 'evt_s1')]);
    await ts.store.events.endJob('job_s1a', 'failed');
    await ts.store.events.settleEventStatus('evt_s1', 2_000);
    expect(await status('evt_s1')).toEqual({ status: 'pending', delivered_at: null });
    await ts.store.events.endJob('job_s1b', 'failed');
    await ts.store.events.settleEventStatus('evt_s1', 3_000);
    expect(await status('evt_s1')).toEqual({ status: 'failed', delivered_at: null });
    // A replay delivers it later: delivered, at that time; settling again keeps the first delivered_at.
    await ts.store.events.endJob('job_s1b', 'delivered');
    await ts.store.events.settleEventStatus('evt_s1', 4_000);
    await ts.store.events.settleEventStatus('evt_s1', 5_000);
    expect(await status('evt_s1')).toEqual({ status: 'delivered', delivered_at: 4_000 });
    // No jobs (only the dev inbox): untouched.
    await ts.store.events.insertEvent(ev('evt_s2', 'dev_inbox'));
    await ts.store.events.settleEventStatus('evt_s2', 6_000);
    expect(await status('evt_s2')).toEqual({ status: 'dev_inbox', delivered_at: null });
  });

  it('cannot read secrets with another master key: the store refuses to open with it, and the sealed secret does not open', async () => {
    const otherKey = Buffer.alloc(32, 7);
    await expect(openStore({ ...(kind === 'sqlite' ? { sqlitePath: ts.location } : { databaseUrl: ts.location }), masterKey: otherKey })).rejects.toBeInstanceOf(ConfigError);
    const { secret_enc } = await ts.store.database.db.selectFrom('account_secrets').select('secret_enc').where('account_id', '=', 'acct_a').executeTakeFirstOrThrow();
    expect(secret_enc).not.toContain(SECRET);
    expect(() => secretBox(otherKey).open(secret_enc)).toThrow();
  });
});
