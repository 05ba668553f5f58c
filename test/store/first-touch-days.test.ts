/**
 * The project's daily first-touch cap, taken with a compare-and-set (store/first-touch-days.ts):
 * requests racing at the start of a day (no row yet) all get a slot while the cap lasts, and of
 * requests racing for the last slots exactly as many as are left get one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestStore, STORE_KINDS, type TestStore } from '../support/stores.js';

const DAY = 86_400_000;

describe.each(STORE_KINDS)('first-touch days (%s)', (kind) => {
  let ts: TestStore;
  beforeAll(async () => {
    ts = await createTestStore(kind);
  });
  afterAll(async () => ts.cleanup());

  it("gives every one of the day's first racing requests a slot while the cap lasts", async () => {
    for (let day = 0; day < 10; day++) {
      const taken = await Promise.all(Array.from({ length: 4 }, () => ts.store.firstTouchDays.take('ten_race', day * DAY, 100)));
      expect(taken, `day ${day}`).toEqual([true, true, true, true]);
    }
  });

  it('gives as many of the racing requests a slot as the cap has left, and a slot given back is taken again', async () => {
    const day = 100 * DAY;
    const taken = await Promise.all(Array.from({ length: 5 }, () => ts.store.firstTouchDays.take('ten_cap', day, 2)));
    expect(taken.filter(Boolean)).toHaveLength(2);
    expect(await ts.store.firstTouchDays.take('ten_cap', day, 2)).toBe(false);
    await ts.store.firstTouchDays.giveBack('ten_cap', day + 1_000);
    expect(await ts.store.firstTouchDays.take('ten_cap', day, 2)).toBe(true);
    expect(await ts.store.firstTouchDays.take('ten_cap', day, 2)).toBe(false);
  });
});
