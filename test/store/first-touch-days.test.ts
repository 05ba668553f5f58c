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

  it("deletes every project's rows of days begun before the cutoff, and keeps the later ones counting", async () => {
    const rows = async () =>
      (await ts.store.database.db.selectFrom('first_touch_days').select(['tenant_id', 'day_start', 'n']).where('tenant_id', 'in', ['ten_old_a', 'ten_old_b']).execute())
        .map((r) => `${r.tenant_id}@${Number(r.day_start) / DAY}=${r.n}`)
        .sort();
    const first = 200;
    for (let day = first; day < first + 5; day++) {
      expect(await ts.store.firstTouchDays.take('ten_old_a', day * DAY, 1)).toBe(true);
      // A day a quarter of a day off, as another timezone's is.
      expect(await ts.store.firstTouchDays.take('ten_old_b', day * DAY + DAY / 4, 2)).toBe(true);
    }
    const cutoff = (first + 2) * DAY;
    // Every project's: the other tests' rows (earlier days) go too.
    const due = await ts.store.database.db.selectFrom('first_touch_days').select((eb) => eb.fn.countAll<number>().as('n')).where('day_start', '<', cutoff).executeTakeFirstOrThrow();
    expect(Number(due.n)).toBeGreaterThanOrEqual(4);
    expect(await ts.store.firstTouchDays.deleteBefore(cutoff)).toBe(Number(due.n));
    expect(Number((await ts.store.database.db.selectFrom('first_touch_days').select((eb) => eb.fn.countAll<number>().as('n')).where('day_start', '<', cutoff).executeTakeFirstOrThrow()).n)).toBe(0);
    expect(await rows()).toEqual(['ten_old_a@202=1', 'ten_old_a@203=1', 'ten_old_a@204=1', 'ten_old_b@202.25=1', 'ten_old_b@203.25=1', 'ten_old_b@204.25=1']);
    expect(await ts.store.firstTouchDays.deleteBefore((first + 2) * DAY)).toBe(0);
    // A slot given back for a deleted day changes no later day's count.
    await ts.store.firstTouchDays.giveBack('ten_old_a', (first + 1) * DAY + 1_000);
    expect(await ts.store.firstTouchDays.take('ten_old_a', (first + 4) * DAY, 1)).toBe(false);
    // The days kept count on: their slots given back are taken again, their caps still hold.
    await ts.store.firstTouchDays.giveBack('ten_old_b', (first + 4) * DAY + DAY / 4 + 1_000);
    expect(await ts.store.firstTouchDays.take('ten_old_b', (first + 4) * DAY + DAY / 4, 1)).toBe(true);
    expect(await ts.store.firstTouchDays.take('ten_old_b', (first + 4) * DAY + DAY / 4, 1)).toBe(false);
  });
});
