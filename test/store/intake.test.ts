/** The inbound intake and catch-up cursors: claimed with an owner and a lease, across processes. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS, createTestStore, joinTestStore, type TestStore } from '../support/stores.js';

describe.each(STORE_KINDS)('inbound intake on %s', (kind) => {
  let ts: TestStore;
  let other: TestStore;
  beforeAll(async () => {
    ts = await createTestStore(kind);
    other = await joinTestStore(ts);
  });
  afterAll(async () => {
    await other.cleanup();
    await ts.cleanup();
  });

  it('hands each stored body to one worker at a time, in arrival order; a late finish after the lease ran out changes nothing', async () => {
    for (const n of [1, 2, 3]) await ts.store.intake.record({ id: `in_00${n}`, line_id: 'line_a', body: `{"n":${n}}`, nowMs: 1_000 });
    // (One after the other: two SQLite connections in one process would wait on each other's lock.)
    const a = await ts.store.intake.claim('w1', 1_000, 100, 2);
    const b = await other.store.intake.claim('w2', 1_000, 100, 2);
    expect(a.map((x) => x.id)).toEqual(['in_001', 'in_002']);
    // in_003 waits for its line's earlier rows, which w1 holds: a line's rows go in order.
    expect(b.map((x) => x.id)).toEqual([]);

    // Both leases run out; w3 takes every row; w1's late finish and retry are refused.
    const taken = await ts.store.intake.claim('w3', 1_100 + 1, 60_000, 10);
    expect(taken.map((x) => x.id)).toEqual(['in_001', 'in_002', 'in_003']);
    expect(await ts.store.intake.finish('in_001', 'w1')).toBe(false);
    expect(await ts.store.intake.retry('in_002', 'w1', 1, null, 'late')).toBe(false);
    expect(await ts.store.intake.finish('in_001', 'w3')).toBe(true);
    expect(await ts.store.intake.retry('in_002', 'w3', 1, 5_000, 'line_down: unreachable')).toBe(true);
    expect(await ts.store.intake.retry('in_003', 'w3', 1, null, 'not_found: gone')).toBe(true);
    expect(await ts.store.intake.list()).toEqual([
      expect.objectContaining({ id: 'in_002', state: 'pending', attempts: 1, last_error: 'line_down: unreachable' }),
      expect.objectContaining({ id: 'in_003', state: 'failed', attempts: 1, last_error: 'not_found: gone' }),
    ]);
    expect(await ts.store.intake.claim('w3', 4_999, 100, 10)).toEqual([]);
    expect((await ts.store.intake.claim('w3', 5_000, 100, 10)).map((x) => x.id)).toEqual(['in_002']);
  });

  it("lets one process at a time walk a line's catch-up, and moves the mark only forward", async () => {
    const c = await ts.store.intake.claimCursor('line_c', 'p1', 1_000, 500);
    expect(c).toMatchObject({ line_id: 'line_c', high_water_ms: null, floor_ms: null, locked_by: 'p1' });
    expect(await other.store.intake.claimCursor('line_c', 'p2', 1_200, 500)).toBeUndefined();
    expect(await ts.store.intake.startCursor('line_c', 'p1', 10_000, 1_200)).toBe(true);
    expect(await ts.store.intake.advanceCursor('line_c', 'p1', 12_000, 1_300, 500)).toBe(true);
    expect(await ts.store.intake.advanceCursor('line_c', 'p1', 11_000, 1_300, 500)).toBe(true);
    expect(await other.store.intake.advanceCursor('line_c', 'p2', 20_000, 1_300, 500)).toBe(false);
    expect(await ts.store.intake.cursor('line_c')).toMatchObject({ high_water_ms: 12_000, floor_ms: 10_000 });
    // p1 stops answering; after its lease p2 takes over.
    expect(await other.store.intake.claimCursor('line_c', 'p2', 1_900, 500)).toMatchObject({ locked_by: 'p2', high_water_ms: 12_000 });
    await ts.store.intake.releaseCursor('line_c', 'p1', 2_000);
    expect(await ts.store.intake.cursor('line_c')).toMatchObject({ locked_by: 'p2', checked_at: null });
    await other.store.intake.releaseCursor('line_c', 'p2', 2_000);
    expect(await ts.store.intake.cursor('line_c')).toMatchObject({ locked_by: null, lease_until: null, checked_at: 2_000 });
  });
});
