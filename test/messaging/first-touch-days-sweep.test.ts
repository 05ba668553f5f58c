/**
 * The project's daily first-touch counts (store/first-touch-days.ts) do not pile up: the
 * reconciliation sweep deletes the rows of days begun more than three days ago, never one whose
 * day is still today in the project's timezone. And a first touch that a crash or a lost answer
 * left `sending` frees its slot of the cap once reconciliation finds it never went out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { appWithBlueBubblesLine } from '../support/bluebubbles-line.js';
import { FIRST_TOUCH_GAP_MS, moveToNextNoonUtc, newRecipient, prepareSandbox } from '../support/messaging.js';
import type { StandIn } from '../drivers/bluebubbles/standin.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** The tenant's rows, as days (UTC, fractional) and counts, oldest first. */
async function countRows(t: TestApp) {
  const tenant = (await t.admin('GET', '/admin/v1/tenants/demo')).json().tenant;
  const rows = await t.testStore.store.database.db.selectFrom('first_touch_days').select(['day_start', 'n']).where('tenant_id', '=', tenant.id).orderBy('day_start').execute();
  return rows.map((r) => ({ day_start: Number(r.day_start), n: r.n }));
}

describe('old daily first-touch counts', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    await prepareSandbox(t);
  });
  afterAll(async () => t.close());

  const send = () => t.api('POST', '/api/v1/send', { phone: newRecipient(), body: 'hi' });

  it("are deleted by the sweep once three days old, never while it is still today in the project's timezone", async () => {
    // UTC-12: at 11:30 UTC its day began 23.5 hours ago, the longest any timezone's "today" has run then.
    await t.admin('PATCH', '/admin/v1/tenants/demo', { timezone: 'Etc/GMT+12', daily_first_touch_cap: 1 });
    moveToNextNoonUtc(t.clock);
    t.clock.advance(DAY_MS - HOUR_MS / 2);
    const firstDay = t.clock.now();
    for (let day = 0; day < 5; day++) {
      if (day > 0) t.clock.advance(DAY_MS);
      expect((await send()).statusCode, `day ${day}`).toBe(200);
    }
    // Midnight at UTC-12 is 12:00 UTC (the test clock moves on with real time: not firstDay - 23.5 h to the millisecond).
    const localMidnight = (ms: number) => Math.floor((ms - 12 * HOUR_MS) / DAY_MS) * DAY_MS + 12 * HOUR_MS;
    expect(await countRows(t)).toEqual([0, 1, 2, 3, 4].map((d) => ({ day_start: localMidnight(firstDay + d * DAY_MS), n: 1 })));

    const swept = await t.services.sendReconciler.sweep();
    expect(swept.firstTouchDaysDeleted).toBe(2);
    // Kept: today (begun 23.5 hours ago), and the two days before it.
    expect(await countRows(t)).toEqual([2, 3, 4].map((d) => ({ day_start: localMidnight(firstDay + d * DAY_MS), n: 1 })));
    // Today's count still holds the cap: its one first touch is taken.
    t.clock.advance(FIRST_TOUCH_GAP_MS);
    const capped = await send();
    expect(capped.statusCode).toBe(503);
    expect(capped.json()).toMatchObject({ code: 4002, reason: expect.stringContaining('daily cap reached') });

    // A day later (past local midnight), the next sweep takes the next oldest; nothing else.
    t.clock.advance(DAY_MS - FIRST_TOUCH_GAP_MS);
    expect((await t.services.sendReconciler.sweep()).firstTouchDaysDeleted).toBe(1);
    expect((await t.services.sendReconciler.sweep()).firstTouchDaysDeleted).toBe(0);
    expect((await countRows(t)).map((r) => r.day_start)).toEqual([3, 4].map((d) => localMidnight(firstDay + d * DAY_MS)));
  });
});

describe('a first touch that never left', () => {
  let t: TestApp;
  let bb: StandIn;
  let lineId: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ t, bb, lineId, close } = await appWithBlueBubblesLine({ timeout_ms: 300 }));
  });
  afterAll(async () => close());

  it('keeps its slot of the cap while `sending`, and frees it once reconciliation finds it was never sent', async () => {
    await t.admin('PATCH', '/admin/v1/tenants/demo', { daily_first_touch_cap: 1 });
    moveToNextNoonUtc(t.clock);
    // The Mac never gets it, and its answer never comes: the message stays `sending`, as a crash leaves it.
    bb.inject('POST /api/v1/message/text', { hangMs: 3_000 });
    const lost = await t.api('POST', '/api/v1/send', { phone: newRecipient(), body: 'lost', phone_line_id: lineId });
    expect(lost.statusCode, lost.body).toBe(503);
    const lostId = lost.json().message_id as string;
    expect((await t.api('GET', `/api/v1/messages/${lostId}`)).json().message.status).toBe('sending');

    // It may have gone out: the cap's one first touch stays taken (another line is free).
    const held = await t.api('POST', '/api/v1/send', { phone: newRecipient(), body: 'next' });
    expect(held.statusCode).toBe(503);
    expect(held.json()).toMatchObject({ code: 4002, reason: expect.stringContaining('daily cap reached') });

    // Past the line's send window the sweep asks the Mac: never sent, so `failed`, and the slot is free.
    t.clock.advance(60_000);
    await t.services.sendReconciler.sweep();
    expect((await t.api('GET', `/api/v1/messages/${lostId}`)).json().message).toMatchObject({ status: 'failed', error_code: 4001 });
    const next = await t.api('POST', '/api/v1/send', { phone: newRecipient(), body: 'next' });
    expect(next.statusCode, next.body).toBe(200);
  });
});
