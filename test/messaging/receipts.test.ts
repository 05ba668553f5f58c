/**
 * Receipts reported together are written together, and every one of them lands with its own
 * time: against a real store on both databases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiptWriter } from '../../src/domain/messaging/receipts.js';
import { STORE_KINDS, createTestStore, type TestStore } from '../support/stores.js';

const LINES = ['line-a', 'line-b'];

describe.each(STORE_KINDS)('receipts on %s', (kind) => {
  let ts: TestStore;
  let statements: number;

  beforeAll(async () => {
    ts = await createTestStore(kind);
    const { store } = ts;
    await store.accounts.insert({ id: 'acct_r', name: 'R', multi_tenant: false, email_verified: true, created_at: 1 }, { id: 'sec_r', plain: 'bl_sk_receipts' });
    await store.tenants.insert({
      id: 'ten_r', account_id: 'acct_r', slug: 'receipts', name: 'R', timezone: 'UTC', sending_window: { start: '00:00', end: '23:59' },
      daily_first_touch_cap: 100, rate_limit: { per_second: 10, burst: 20 }, status: 'active', created_at: 1,
    });
    await store.chats.ensureChat({ id: 'chat_r', tenant_id: 'ten_r', is_group: false, lead_id: null, line_id: null, convo_id: 'cv_r', chat_key: null, display_name: null, created_at: 1 });
    // Counts the statements the writer makes, passing each call on to the real store.
    const apply = store.messages.applyReceipts.bind(store.messages);
    store.messages.applyReceipts = (...args) => {
      statements++;
      return apply(...args);
    };
  });
  afterAll(async () => ts.cleanup());

  const insertSent = async (n: number, prefix: string) => {
    for (let i = 0; i < n; i++) {
      await ts.store.messages.insert({
        id: `msg_${prefix}${i}`, tenant_id: 'ten_r', chat_id: 'chat_r', line_id: LINES[i % 2]!, direction: 'outbound', sender_handle: '+14155550100',
        parts: [{ type: 'text', value: 'hi' }], effect: null, status: 'sent', provider_guid: `${prefix}${i}`, first_touch: false, error_code: null,
        sent_at: 1_000, delivered_at: null, read_at: null, edited_at: null,
      });
    }
  };

  it('writes 200 receipts reported at once in one statement per line and kind, each with its own time', async () => {
    await insertSent(100, 'a');
    const writer = receiptWriter(ts.store);
    statements = 0;
    await Promise.all(
      Array.from({ length: 100 }, (_, i) => [writer.apply(LINES[i % 2]!, `a${i}`, 'delivered', 2_000 + i), writer.apply(LINES[i % 2]!, `a${i}`, 'read', 3_000 + i)]).flat(),
    );
    expect(statements).toBe(4);
    for (const i of [0, 1, 57, 99]) {
      expect(await ts.store.messages.get('ten_r', `msg_a${i}`)).toMatchObject({ status: 'read', delivered_at: 2_000 + i, read_at: 3_000 + i });
    }
  });

  it('a receipt reported while a batch is being written goes in the next batch', async () => {
    await insertSent(2, 'b');
    const writer = receiptWriter(ts.store);
    statements = 0;
    const first = writer.apply('line-a', 'b0', 'delivered', 5_000);
    // Reported on a later turn, while the first batch is still being written.
    const second = new Promise<boolean>((resolve, reject) => setImmediate(() => writer.apply('line-b', 'b1', 'delivered', 6_000).then(resolve, reject)));
    await Promise.all([first, second]);
    expect(statements).toBe(2);
    expect(await ts.store.messages.get('ten_r', 'msg_b0')).toMatchObject({ status: 'delivered', delivered_at: 5_000 });
    expect(await ts.store.messages.get('ten_r', 'msg_b1')).toMatchObject({ status: 'delivered', delivered_at: 6_000 });
  });

  it('tells each caller whether its guid named an outbound message: not an unknown, inbound or failed one', async () => {
    await insertSent(2, 'd');
    const other = { tenant_id: 'ten_r', chat_id: 'chat_r', line_id: 'line-a', sender_handle: '+14155550100', parts: [{ type: 'text' as const, value: 'hi' }], effect: null, first_touch: false, sent_at: 1_000, delivered_at: null, read_at: null, edited_at: null };
    await ts.store.messages.insert({ ...other, id: 'msg_d_in', direction: 'inbound', status: 'received', provider_guid: 'd-in', error_code: null });
    await ts.store.messages.insert({ ...other, id: 'msg_d_failed', direction: 'outbound', status: 'failed', provider_guid: 'd-failed', error_code: 4001 });
    const writer = receiptWriter(ts.store);
    statements = 0;
    const matched = await Promise.all(['d0', 'd-unknown', 'd-in', 'd-failed', 'd0'].map((guid) => writer.apply('line-a', guid, 'delivered', 9_000)));
    expect(matched).toEqual([true, false, false, false, true]);
    expect(statements).toBe(1);
    expect(await writer.apply('line-b', 'd1', 'read', 9_500)).toBe(true);
    expect(await writer.apply('line-a', 'd1', 'read', 9_500)).toBe(false); // another line's message
  });

  it("a batch the store refuses fails each of its callers, and the next batch is written", async () => {
    await insertSent(2, 'c');
    const writer = receiptWriter(ts.store);
    const apply = ts.store.messages.applyReceipts;
    ts.store.messages.applyReceipts = async () => {
      ts.store.messages.applyReceipts = apply;
      throw new Error('database unavailable');
    };
    const failed = await Promise.allSettled([writer.apply('line-a', 'c0', 'read', 7_000), writer.apply('line-a', 'c0', 'delivered', 7_000)]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
    await writer.apply('line-a', 'c0', 'read', 8_000);
    expect(await ts.store.messages.get('ten_r', 'msg_c0')).toMatchObject({ status: 'read', read_at: 8_000, delivered_at: 7_000 });
  });
});
