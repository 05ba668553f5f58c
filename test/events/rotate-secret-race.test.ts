/**
 * Two rotations of one webhook subscription's secret at the same time (two console tabs, a
 * retried request): each caller is told a "new" secret and then verifies deliveries with it, so
 * each answered secret must be one that actually signs them. A real receiver on loopback checks
 * the signatures of the subscription's test delivery (POST …/test).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { STORE_KINDS } from '../support/stores.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { verifyWebhook } from '../../src/index.js';

describe.each(STORE_KINDS)('concurrent secret rotations of one subscription (%s)', (kind) => {
  let t: TestApp;
  let rx: Receiver;
  beforeAll(async () => {
    t = await startTestApp(kind, { BLUELINE_ALLOW_PRIVATE_NETWORKS: '1', BLUELINE_DELIVERY_WORKER: '0' });
    rx = await startReceiver();
  });
  afterAll(async () => {
    await rx.close();
    await t.close();
  });

  /** Which of `secrets` sign a delivery to the subscription now. */
  async function signing(subId: string, secrets: string[]): Promise<boolean[]> {
    const before = rx.received.length;
    expect((await t.api('POST', `/api/v1/webhook-subscriptions/${subId}/test`)).json().ok).toBe(true);
    const got = (await rx.waitFor(before + 1))[before]!;
    return secrets.map((secret) => verifyWebhook({ rawBody: got.body, headers: got.headers, secret }).ok);
  }

  it('every secret a rotation answered signs deliveries, with the original one in its overlap', async () => {
    for (let round = 0; round < 5; round++) {
      const created = (await t.api('POST', '/api/v1/webhook-subscriptions', { url: rx.url, events: ['message.received'] })).json();
      const rotate = () => t.api('POST', `/api/v1/webhook-subscriptions/${created.id}/rotate-secret`, {});
      const answers = await Promise.all([rotate(), rotate()]);
      expect(answers.map((a) => a.statusCode)).toEqual([200, 200]);
      const [a, b] = answers.map((r) => r.json().secret as string);
      expect(a).not.toBe(b);
      // Both answered secrets sign (one is current, the other in its overlap), and so does the
      // secret they replaced.
      expect(await signing(created.id, [a!, b!, created.secret])).toEqual([true, true, true]);
      await t.api('DELETE', `/api/v1/webhook-subscriptions/${created.id}`);
    }
  });
});
