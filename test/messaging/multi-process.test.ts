/**
 * Two processes (two apps, each with its own in-process state) on one PostgreSQL database: a
 * first touch to a new recipient sent through both at once must still reach the recipient from
 * one number. Only the database can arbitrate between them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { FIRST_TOUCH_GAP_MS, deviceLog, newRecipient, prepareSandbox } from '../support/messaging.js';

describe('first touches racing in two processes on one PostgreSQL database', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await startTestApp('postgres');
    b = await startTestApp('postgres', {}, { join: a });
    await prepareSandbox(a);
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  it('reach the recipient from one line, and the losing line keeps its first-touch slot', async () => {
    const [lineA, lineB] = a.demo.phone_line_ids as [string, string];
    for (let round = 0; round < 5; round++) {
      // Both processes' clocks past every line's 10-minute gap, so each could take a free line.
      for (const t of [a, b]) t.clock.advance(FIRST_TOUCH_GAP_MS + 1_000);
      const phone = newRecipient();
      const [ra, rb] = await Promise.all([
        a.api('POST', '/api/v1/send', { phone, body: `round ${round} via a` }),
        b.api('POST', '/api/v1/send', { phone, body: `round ${round} via b` }),
      ]);
      expect([ra.statusCode, rb.statusCode], `${ra.body} ${rb.body}`).toEqual([200, 200]);
      const [sa, sb] = [ra.json(), rb.json()];
      expect(sa.chat_id).toBe(sb.chat_id);
      expect(sa.phone_line_id).toBe(sb.phone_line_id);
      // Exactly one of them was the first touch; the other went out on the line it pinned.
      const stored = await Promise.all([a.api('GET', `/api/v1/messages/${sa.message_id}`), a.api('GET', `/api/v1/messages/${sb.message_id}`)]);
      expect(stored.map((r) => r.json().message.phone_line_id)).toEqual([sa.phone_line_id, sa.phone_line_id]);
      const [logA, logB] = await Promise.all([deviceLog(a, lineA), deviceLog(a, lineB)]);
      const to = (log: Record<string, unknown>[]) => log.filter((e) => e.to === phone).length;
      expect(to(logA) + to(logB)).toBe(2);
      expect(Math.min(to(logA), to(logB))).toBe(0);
    }
    // The line that lost the last race was left free: one more first touch now takes it, and
    // then both lines are within their 10-minute gap.
    const next = await a.api('POST', '/api/v1/send', { phone: newRecipient(), body: 'the other line' });
    const again = await b.api('POST', '/api/v1/send', { phone: newRecipient(), body: 'and no third' });
    expect(next.statusCode, next.body).toBe(200);
    expect(again.statusCode).toBe(503);
    expect(again.json().code).toBe(4002);
  });
});
