import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { FIRST_TOUCH_GAP_MS, newRecipient, prepareSandbox } from '../support/messaging.js';
import { SIMULATOR_RECIPIENTS } from '../../src/drivers/simulator/reserved.js';

const DAY = 86_400_000;

/** Moves the test clock to `hh:mm` UTC of the next day (tenants here use UTC). */
function advanceToNextUtc(t: TestApp, hh: number, mm = 0) {
  const now = t.clock.now();
  const target = Math.floor(now / DAY) * DAY + DAY + (hh * 60 + mm) * 60_000;
  t.clock.advance(target - now);
}

describe('first-touch limits and line selection', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp('sqlite');
    await prepareSandbox(t);
    advanceToNextUtc(t, 1);
  });
  afterEach(async () => t.close());

  const send = (phone: string, body = 'hi') => t.api('POST', '/api/v1/send', { phone, body });

  it('spreads first touches over the lines, then waits 10 minutes per line (4002 with retry_after)', async () => {
    const a = (await send(newRecipient())).json();
    const b = (await send(newRecipient())).json();
    expect(new Set([a.phone_line_id, b.phone_line_id]).size).toBe(2);
    const c = await send(newRecipient());
    expect(c.statusCode).toBe(503);
    expect(c.json()).toMatchObject({ status: 'failed', code: 4002, retryable: true, retry_after: 600 });
    expect(c.headers['retry-after']).toBe('600');
    t.clock.advance(FIRST_TOUCH_GAP_MS - 2_000);
    expect((await send(newRecipient())).json().code).toBe(4002);
    t.clock.advance(2_000);
    expect((await send(newRecipient())).statusCode).toBe(200);
  });

  it('speaks of the named line when a first touch names one (phone_line_id) in its gap, of every line otherwise', async () => {
    const [lineA, lineB] = t.demo.phone_line_ids as [string, string];
    expect((await t.api('POST', '/api/v1/send', { phone: newRecipient(), body: 'hi', phone_line_id: lineA })).statusCode).toBe(200);
    // Line B is free, but this send names line A: it waits for A alone.
    const named = await t.api('POST', '/api/v1/send', { phone: newRecipient(), body: 'hi', phone_line_id: lineA });
    expect(named.statusCode).toBe(503);
    expect(named.json()).toMatchObject({ code: 4002, retryable: true, retry_after: 600 });
    expect(named.json().reason).toBe(`phone line ${lineA} (named by phone_line_id) is at its first-touch limit right now`);
    // A group creation naming it, likewise.
    const group = await t.api('POST', '/api/v1/chats', { to: [newRecipient(), newRecipient()], message: { parts: [{ type: 'text', value: 'hi' }] }, phone_line_id: lineA });
    expect(group.json().error).toMatchObject({ code: 4002, message: `phone line ${lineA} (named by phone_line_id) is at its first-touch limit right now` });
    expect((await send(newRecipient())).json().phone_line_id).toBe(lineB);
    const any = await send(newRecipient());
    expect(any.json()).toMatchObject({ code: 4002, reason: 'every phone line is at its first-touch limit right now' });
  });

  it('lets replies through at once, on the conversation\'s own line', async () => {
    const phone = newRecipient();
    const first = (await send(phone)).json();
    await send(newRecipient()); // the other line's first touch: both lines now in their gap
    const reply = await send(phone, 'a reply is not a first touch');
    expect(reply.statusCode).toBe(200);
    expect(reply.json().phone_line_id).toBe(first.phone_line_id);
  });

  it('pins nothing after a failed first touch: the retry is a first touch again, from another line', async () => {
    const failed = await send(SIMULATOR_RECIPIENTS.unreachable);
    expect(failed.statusCode).toBe(502);
    const retry = await send(SIMULATOR_RECIPIENTS.unreachable);
    expect(retry.statusCode).toBe(502);
    // The failed attempt used its line's 10-minute gap, so the retry went out from the other line.
    expect(retry.json().phone_line_id).not.toBe(failed.json().phone_line_id);
    const history = (await t.api('GET', `/api/v1/chats/${failed.json().chat_id}/messages`)).json().messages;
    expect(history.map((m: { phone_line_id: string }) => m.phone_line_id).sort()).toEqual([failed.json().phone_line_id, retry.json().phone_line_id].sort());
    // Both lines are now in their gap: a third attempt waits like any first touch.
    const third = await send(SIMULATOR_RECIPIENTS.unreachable);
    expect(third.statusCode).toBe(503);
    expect(third.json().code).toBe(4002);
  });

  it('allows 30 first touches per line per day, then 4002 until the next day', async () => {
    await t.admin('PATCH', `/admin/v1/lines/${t.demo.phone_line_ids[1]}`, { is_active: false });
    await t.admin('PATCH', '/admin/v1/tenants/demo', { daily_first_touch_cap: 1000 });
    for (let i = 0; i < 30; i++) {
      const res = await send(newRecipient());
      expect(res.statusCode, `first touch ${i + 1}`).toBe(200);
      t.clock.advance(FIRST_TOUCH_GAP_MS);
    }
    const over = await send(newRecipient());
    expect(over.json()).toMatchObject({ code: 4002 });
    const untilMidnight = DAY - (t.clock.now() % DAY);
    expect(over.json().retry_after).toBe(Math.ceil(untilMidnight / 1000));
    advanceToNextUtc(t, 0, 1);
    expect((await send(newRecipient())).statusCode).toBe(200);
  });

  it('stops at the project\'s daily first-touch cap with "daily cap reached"', async () => {
    await t.admin('PATCH', '/admin/v1/tenants/demo', { daily_first_touch_cap: 2 });
    expect((await send(newRecipient())).statusCode).toBe(200);
    expect((await send(newRecipient())).statusCode).toBe(200);
    t.clock.advance(FIRST_TOUCH_GAP_MS);
    const capped = await send(newRecipient());
    expect(capped.statusCode).toBe(503);
    expect(capped.json()).toMatchObject({ code: 4002, reason: expect.stringContaining('daily cap reached') });
  });

  it('holds first touches outside the sending window, in the tenant\'s timezone', async () => {
    // 09:00–17:00 in New York; it is 01:00 UTC = 20:00 or 21:00 the day before there.
    await t.admin('PATCH', '/admin/v1/tenants/demo', { timezone: 'America/New_York', sending_window: { start: '09:00', end: '17:00' } });
    const held = await send(newRecipient());
    expect(held.statusCode).toBe(503);
    expect(held.json()).toMatchObject({ code: 4002, reason: expect.stringContaining('sending window') });
    const wait = held.json().retry_after as number;
    expect(wait).toBeGreaterThan(11 * 3600);
    expect(wait).toBeLessThanOrEqual(13 * 3600);
    t.clock.advance(wait * 1000);
    expect((await send(newRecipient())).statusCode).toBe(200);
  });

  it('sends nothing from a line declared without `send`, and still records what arrives on it', async () => {
    const [quiet, other] = t.demo.phone_line_ids as [string, string];
    const phone = newRecipient();
    // A conversation on the first line; then that line stops sending.
    const first = (await t.api('POST', '/api/v1/send', { phone, body: 'hi', phone_line_id: quiet })).json();
    expect(first.phone_line_id).toBe(quiet);
    const patched = await t.admin('PATCH', `/admin/v1/lines/${quiet}`, { capabilities: ['imessage', 'receive'] });
    expect(patched.json().phone_line.capabilities).toEqual(['imessage', 'receive']);
    t.clock.advance(FIRST_TOUCH_GAP_MS + 1_000);
    // The conversation moves to a line that sends; first touches never take the quiet line.
    expect((await send(phone, 'a reply')).json().phone_line_id).toBe(other);
    const explicit = await t.api('POST', '/api/v1/send', { phone: newRecipient(), body: 'hi', phone_line_id: quiet });
    expect(explicit.statusCode).toBe(503);
    expect(explicit.json()).toMatchObject({ code: 3002, reason: 'the phone line is not active or does not send' });
    const inbound = await t.admin('POST', `/admin/v1/lines/${quiet}/simulate/inbound`, { from: newRecipient(), text: 'still heard' });
    expect(inbound.statusCode).toBe(202);
    // Only the spec's values: a typo is refused with what is allowed.
    const typo = await t.admin('PATCH', `/admin/v1/lines/${quiet}`, { capabilities: ['imessage', 'sned'] });
    expect(typo.statusCode).toBe(400);
    expect(typo.json().error).toMatchObject({ code: 1002, message: `body field 'capabilities.1' must be one of "imessage", "send", "receive"` });
  });

  it('answers 3002 when no line of the tenant can send', async () => {
    for (const id of t.demo.phone_line_ids) await t.admin('PATCH', `/admin/v1/lines/${id}`, { is_active: false });
    const res = await send(newRecipient());
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ code: 3002, retryable: true });
  });
});
