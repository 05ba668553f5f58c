/**
 * The fence a claim's owner writes through: once a retry took over a claim whose lease passed,
 * the previous owner can neither record a message step, renew, complete nor release it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS, createTestStore, type TestStore } from '../support/stores.js';

describe.each(STORE_KINDS)('idempotency claim leases (%s)', (kind) => {
  let t: TestStore;
  beforeAll(async () => {
    t = await createTestStore(kind);
  });
  afterAll(async () => t.cleanup());

  const claim = (key: string, owner: string, now: number) =>
    t.store.idempotency.claim(
      { tenant_id: 't1', route: 'send', key, fingerprint: 'f', identity: 'i', state: 'in_progress', http_status: null, response: null, created_at: now, expires_at: now + 6 * 3600_000, owner, lease_until: now + 60_000 },
      now,
    );

  it('lets one retry take over a claim whose lease passed, and fences the previous owner out', async () => {
    const id = { tenant_id: 't1', route: 'send', key: 'k1' };
    expect(await claim('k1', 'a', 1_000)).toEqual({ claimed: true });
    expect(await t.store.idempotency.recordSteps(id, 'a', ['msg_1'], 61_000)).toBe(true);
    // Live lease: nobody takes it over.
    expect(await t.store.idempotency.takeOver(id, 'a', 'b', 60_000, 60_000)).toBe(false);
    // Past it: one of two racing retries gets it.
    const [b, c] = await Promise.all([
      t.store.idempotency.takeOver(id, 'a', 'b', 61_000, 60_000),
      t.store.idempotency.takeOver(id, 'a', 'c', 61_000, 60_000),
    ]);
    expect([b, c].filter(Boolean)).toHaveLength(1);
    const winner = b ? 'b' : 'c';
    const rec = await t.store.idempotency.get('t1', 'send', 'k1');
    expect(rec).toMatchObject({ owner: winner, lease_until: 121_000, message_ids: '["msg_1"]', state: 'in_progress' });
    // The previous owner changes nothing any more.
    expect(await t.store.idempotency.recordSteps(id, 'a', ['msg_1', 'msg_2'], 200_000)).toBe(false);
    expect(await t.store.idempotency.renew(id, 'a', 200_000)).toBe(false);
    expect(await t.store.idempotency.complete(id, '{"kind":"result","result":1}', 'a')).toBe(false);
    await t.store.idempotency.release(id, 'a');
    await t.store.idempotency.lapse(id, 'a', 0);
    expect(await t.store.idempotency.get('t1', 'send', 'k1')).toMatchObject({ owner: winner, lease_until: 121_000, message_ids: '["msg_1"]', state: 'in_progress' });
    // The new owner does.
    expect(await t.store.idempotency.complete(id, '{"kind":"result","result":2}', winner)).toBe(true);
    expect(await t.store.idempotency.get('t1', 'send', 'k1')).toMatchObject({ state: 'done', response: '{"kind":"result","result":2}' });
  });

  it('counts a record from before leases (no owner) from its creation', async () => {
    const id = { tenant_id: 't1', route: 'send', key: 'k2' };
    await t.store.idempotency.claim(
      { ...id, fingerprint: 'f', identity: 'i', state: 'in_progress', http_status: null, response: null, created_at: 1_000, expires_at: 1_000 + 6 * 3600_000 },
      1_000,
    );
    expect(await t.store.idempotency.takeOver(id, null, 'b', 30_000, 60_000)).toBe(false);
    expect(await t.store.idempotency.takeOver(id, null, 'b', 61_000, 60_000)).toBe(true);
  });
});
