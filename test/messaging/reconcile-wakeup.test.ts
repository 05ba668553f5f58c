/**
 * A send whose line's answer never came (a BlueBubbles send that timed out, 503 / 3002) is settled
 * when the line's window ends, by the running reconciler's own wake-up: not a minute later at its
 * next round. Nothing is swept by hand here; the clock is moved past the window while the send is
 * under way, so the wake-up is due at once (its timer runs on real time). A stopped reconciler
 * settles nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appWithBlueBubblesLine } from '../support/bluebubbles-line.js';
import { eventually } from '../support/messaging.js';
import type { TestApp } from '../support/app.js';
import type { StandIn } from '../drivers/bluebubbles/standin.js';

describe('the reconciler wakes for a lost answer', () => {
  let t: TestApp;
  let bb: StandIn;
  let lineId: string;
  let close: () => Promise<void>;
  const phone = '+14155550695';
  beforeAll(async () => {
    ({ t, bb, lineId, close } = await appWithBlueBubblesLine({ timeout_ms: 300 }));
    const opened = await t.api('POST', '/api/v1/send', { phone, body: 'hello', phone_line_id: lineId });
    expect(opened.statusCode, opened.body).toBe(200);
  });
  afterAll(async () => close());

  const status = async (id: string) => (await t.api('GET', `/api/v1/messages/${id}`)).json().message;
  const texts = () => bb.requestsTo('POST', '/api/v1/message/text').length;

  /** A send the Mac never gets, answered 503 once the line's timeout passed; the clock is moved past its window meanwhile. */
  async function lostSend(body: string): Promise<string> {
    const before = texts();
    bb.inject('POST /api/v1/message/text', { hangMs: 3_000 });
    const answer = t.api('POST', '/api/v1/send', { phone, body });
    await eventually(async () => texts(), (n) => n > before);
    t.clock.advance(60_000);
    const res = await answer;
    expect(res.statusCode, res.body).toBe(503);
    const id = res.json().message_id as string;
    expect(await status(id)).toMatchObject({ status: 'sending' });
    return id;
  }

  it('settles it once its window has ended, and not after stop()', async () => {
    // Started: it swept at once and would otherwise sweep again in a minute.
    expect(await t.services.sendReconciler.start()).toMatchObject({ pending: 0 });
    const lost = await lostSend('lost answer');
    // Its next round is a minute away: settled well before that is the wake-up's doing (20 s is
    // the end of waiting on a loaded machine, not a latency budget).
    const settled = await eventually(() => status(lost), (m) => m.status !== 'sending', 20_000);
    expect(settled).toMatchObject({ status: 'failed', error_code: 4001 });

    await t.services.sendReconciler.stop();
    const afterStop = await lostSend('after stop');
    await new Promise((r) => setTimeout(r, 400));
    expect(await status(afterStop)).toMatchObject({ status: 'sending' });
  });
});
