/**
 * A line's next service epoch named atomically (lineRuntime.replaceServiceEpoch): several
 * processes naming a line's first epoch, or the one after a restart, at once agree on one.
 * PostgreSQL: two connection pools, as two processes; SQLite (one process per file): one store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS, createTestStore, joinTestStore, type TestStore } from '../support/stores.js';

describe.each(STORE_KINDS)("a line's service epoch on %s", (kind) => {
  let ts: TestStore;
  let other: TestStore;
  beforeAll(async () => {
    ts = await createTestStore(kind);
    other = kind === 'postgres' ? await joinTestStore(ts) : ts;
  });
  afterAll(async () => {
    if (other !== ts) await other?.cleanup();
    await ts?.cleanup();
  });

  it('a first epoch is written once: every caller at the same moment answers the same one', async () => {
    const names = ['epoch-a', 'epoch-b', 'epoch-c', 'epoch-d'];
    const got = await Promise.all(names.map((e, i) => (i % 2 ? other : ts).store.lineRuntime.replaceServiceEpoch('line-first', undefined, e, 1_000)));
    const winner = got[0]!.epoch;
    expect(names).toContain(winner);
    expect(got.map((g) => g.epoch)).toEqual(names.map(() => winner));
    expect(got.filter((g) => g.wrote)).toEqual([{ epoch: winner, wrote: true }]);
    expect(await ts.store.lineRuntime.serviceEpoch('line-first')).toBe(winner);
    // A later "first" epoch does not replace it.
    expect(await other.store.lineRuntime.replaceServiceEpoch('line-first', undefined, 'epoch-late', 2_000)).toEqual({ epoch: winner, wrote: false });
  });

  it("replaces a first-touch reservation's placeholder, which is no epoch", async () => {
    expect(await ts.store.lineRuntime.reserveFirstTouch('line-reserved', 1_000, 60_000)).toBe(true);
    expect(await ts.store.lineRuntime.serviceEpoch('line-reserved')).toBeUndefined();
    expect(await ts.store.lineRuntime.replaceServiceEpoch('line-reserved', undefined, 'epoch-1', 1_001)).toEqual({ epoch: 'epoch-1', wrote: true });
    expect(await ts.store.lineRuntime.serviceEpoch('line-reserved')).toBe('epoch-1');
    expect(await ts.store.lineRuntime.lastFirstTouch('line-reserved')).toBe(1_000);
  });

  it('moves an epoch on only from the one named: a second process bumping the same one gets the first bump', async () => {
    await ts.store.lineRuntime.setServiceEpoch('line-cas', 'bb:abc:1', 1_000);
    const [x, y] = await Promise.all([
      ts.store.lineRuntime.replaceServiceEpoch('line-cas', 'bb:abc:1', 'bb:abc:2', 2_000),
      other.store.lineRuntime.replaceServiceEpoch('line-cas', 'bb:abc:1', 'bb:abc:2', 2_000),
    ]);
    expect([x.epoch, y.epoch]).toEqual(['bb:abc:2', 'bb:abc:2']);
    expect([x.wrote, y.wrote].filter(Boolean)).toHaveLength(1);
    // From a stale one: nothing written, the stored one answered.
    expect(await other.store.lineRuntime.replaceServiceEpoch('line-cas', 'bb:abc:1', 'bb:abc:3', 3_000)).toEqual({ epoch: 'bb:abc:2', wrote: false });
    expect(await ts.store.lineRuntime.serviceEpoch('line-cas')).toBe('bb:abc:2');
  });
});
