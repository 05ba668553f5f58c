/**
 * The project's daily first-touch cap holds under concurrency: first touches racing for its last
 * slot (in one process, or in two on one PostgreSQL database) let exactly one through, since the
 * cap is taken with a compare-and-set (store/first-touch-days.ts), not read from a count of the
 * day's messages that none of the racers had inserted yet.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { STORE_KINDS } from '../support/stores.js';
import { FIRST_TOUCH_GAP_MS, allDeviceLogs, moveToNextNoonUtc, newRecipient, prepareSandbox } from '../support/messaging.js';
import { SIMULATOR_RECIPIENTS } from '../../src/drivers/simulator/reserved.js';

const DAY_MS = 86_400_000;

type Reply = { statusCode: number; json(): Record<string, unknown>; body: string };

/**
 * Runs the sends: one went out, and every other one was refused for the daily cap, with the
 * seconds left of the day when it was answered (the test clock runs with the wall clock, so
 * that is between the clock's readings before and after the sends).
 */
async function expectOneThroughTheCap<R extends Reply>(t: TestApp, sends: () => Promise<R[]>): Promise<R> {
  const secondsLeft = () => Math.ceil((DAY_MS - (t.clock.now() % DAY_MS)) / 1000);
  const atMost = secondsLeft();
  const replies = await sends();
  const atLeast = secondsLeft();
  const sent = replies.filter((r) => r.statusCode === 200);
  expect(sent.length, replies.map((r) => r.body).join('\n')).toBe(1);
  for (const r of replies.filter((x) => x.statusCode !== 200)) {
    expect(r.statusCode, r.body).toBe(503);
    expect(r.json()).toMatchObject({ code: 4002, reason: expect.stringContaining('daily cap reached') });
    expect(r.json().retry_after).toBeGreaterThanOrEqual(atLeast);
    expect(r.json().retry_after).toBeLessThanOrEqual(atMost);
  }
  return sent[0]!;
}

describe.each(STORE_KINDS)('the daily first-touch cap under concurrency (%s)', (kind) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp(kind);
    await prepareSandbox(t);
    moveToNextNoonUtc(t.clock);
  });
  afterEach(async () => t.close());

  const send = (phone: string, body = 'hi') => t.api('POST', '/api/v1/send', { phone, body });

  it('lets one of three concurrent first touches through a cap of 1, with two lines free', async () => {
    expect(t.demo.phone_line_ids.length).toBe(2);
    await t.admin('PATCH', '/admin/v1/tenants/demo', { daily_first_touch_cap: 1 });
    const phones = [newRecipient(), newRecipient(), newRecipient()];
    let replies: Awaited<ReturnType<typeof send>>[] = [];
    const sent = await expectOneThroughTheCap(t, async () => (replies = await Promise.all(phones.map((p) => send(p)))));
    const out = (await allDeviceLogs(t)).filter((e) => phones.includes(e.to as string));
    expect(out.map((e) => e.to)).toEqual([phones[replies.indexOf(sent)]]);
    // Refused ones gave nothing back wrongly: the cap stays used up with both lines past their gap.
    t.clock.advance(FIRST_TOUCH_GAP_MS);
    await expectOneThroughTheCap(t, async () => [sent, await send(newRecipient())]);
  });

  it('does not count a failed first touch against the cap, and frees the cap the next day', async () => {
    await t.admin('PATCH', '/admin/v1/tenants/demo', { daily_first_touch_cap: 1 });
    const failed = await send(SIMULATOR_RECIPIENTS.unreachable);
    expect(failed.statusCode).toBe(502);
    // The failed one used its line's gap, not the cap: the other line takes the cap's one first touch.
    // Either of the two may be the one that goes out.
    const ok = await expectOneThroughTheCap(t, () => Promise.all([send(newRecipient()), send(newRecipient())]));
    t.clock.advance(FIRST_TOUCH_GAP_MS);
    await expectOneThroughTheCap(t, async () => [ok, await send(newRecipient())]);
    moveToNextNoonUtc(t.clock);
    await expectOneThroughTheCap(t, () => Promise.all([send(newRecipient()), send(newRecipient())]));
  });

  it('gives the cap back when no line could take the first touch', async () => {
    await t.admin('PATCH', '/admin/v1/tenants/demo', { daily_first_touch_cap: 2 });
    expect((await send(newRecipient())).statusCode).toBe(200);
    expect((await send(newRecipient())).statusCode).toBe(200);
    await t.admin('PATCH', '/admin/v1/tenants/demo', { daily_first_touch_cap: 3 });
    // Both lines in their gap: refused for the lines, so the cap's third slot stays free.
    for (let i = 0; i < 3; i++) {
      const busy = await send(newRecipient());
      expect(busy.statusCode).toBe(503);
      expect(busy.json().reason).toContain('every phone line');
    }
    t.clock.advance(FIRST_TOUCH_GAP_MS);
    await expectOneThroughTheCap(t, () => Promise.all([send(newRecipient()), send(newRecipient())]));
  });
});

describe('the daily first-touch cap across two processes on one PostgreSQL database', () => {
  let a: TestApp;
  let b: TestApp;
  beforeEach(async () => {
    a = await startTestApp('postgres');
    b = await startTestApp('postgres', {}, { join: a });
    await prepareSandbox(a);
    for (const t of [a, b]) moveToNextNoonUtc(t.clock);
  });
  afterEach(async () => {
    await b.close();
    await a.close();
  });

  it('lets one first touch through a cap of 1 when both processes send at once', async () => {
    await a.admin('PATCH', '/admin/v1/tenants/demo', { daily_first_touch_cap: 1 });
    for (let round = 0; round < 3; round++) {
      const phones = [newRecipient(), newRecipient(), newRecipient(), newRecipient()];
      await expectOneThroughTheCap(a, () => Promise.all(phones.map((p, i) => (i % 2 ? b : a).api('POST', '/api/v1/send', { phone: p, body: `round ${round}` }))));
      const out = (await allDeviceLogs(a)).filter((e) => phones.includes(e.to as string));
      expect(out).toHaveLength(1);
      // The next day, in both processes: the cap is free again.
      for (const t of [a, b]) moveToNextNoonUtc(t.clock);
    }
  });
});
