/**
 * BlueBubbles webhooks of one line while two processes share one PostgreSQL database: each
 * process's intake worker claims rows, and rows of one line must still be processed one after
 * another, in arrival order (docs/decisions.md, "Inbound durability"), whichever process
 * claims them. Otherwise a contact's text sent after a photo reaches the webhook receiver first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { eventually, prepareSandbox } from '../support/messaging.js';
import { freePort } from '../support/ports.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { StandIn } from '../drivers/bluebubbles/standin.js';
import { PNG } from '../drivers/bluebubbles/helpers.js';

describe("one line's BlueBubbles webhooks taken by two processes on one PostgreSQL database", () => {
  let a: TestApp;
  let b: TestApp;
  let bb: StandIn;
  let rx: Receiver;
  let hookA: string;
  let hookB: string;
  let sender = 0;
  const from = () => `+1415555${String(8100 + sender++).padStart(4, '0')}`;

  beforeAll(async () => {
    const [portA, portB] = [await freePort(), await freePort()];
    const env = { BLUELINE_ALLOW_PRIVATE_NETWORKS: '1', BLUELINE_CATCHUP_INTERVAL_MS: '3600000' };
    a = await startTestApp('postgres', { ...env, PUBLIC_BASE_URL: `http://127.0.0.1:${portA}` });
    b = await startTestApp('postgres', { ...env, PUBLIC_BASE_URL: `http://127.0.0.1:${portB}` }, { join: a });
    await a.app.listen({ port: portA, host: '127.0.0.1' });
    await b.app.listen({ port: portB, host: '127.0.0.1' });
    await prepareSandbox(a);
    rx = await startReceiver();
    expect((await a.api('POST', '/api/v1/webhook-subscriptions', { url: rx.url, events: ['message.received'] })).statusCode).toBe(201);
    bb = await new StandIn().start();
    const res = await a.admin('POST', '/admin/v1/lines', { tenant: 'demo', phone_number: '+14155550691', driver: 'bluebubbles', driver_config: bb.config() });
    expect(res.statusCode, res.body).toBe(201);
    hookA = (await eventually(async () => bb.webhooks, (w) => w.length > 0))[0]!.url;
    hookB = hookA.replace(`:${portA}/`, `:${portB}/`);
    expect(hookB).not.toBe(hookA);
  });
  afterAll(async () => {
    await bb?.stop();
    await rx?.close();
    await b?.close();
    await a?.close();
  });

  it("a photo then a text from one contact, their webhooks answered by different processes: received in that order", async () => {
    for (let round = 0; round < 3; round++) {
      const contact = from();
      // The photo's webhook is trimmed: its message is fetched from a slow Mac.
      bb.messageLookupDelayMs = 600;
      const image = bb.addAttachment({ bytes: PNG, mimeType: 'image/png', transferName: `photo-${round}.png` });
      const photo = bb.addIncoming({ from: contact, text: 'here is the photo', attachments: [image] });
      const text = bb.addIncoming({ from: contact, text: 'did you get it?', dateCreated: photo.dateCreated + 1 });
      const before = rx.received.length;
      expect((await bb.post(hookA, bb.webhookEvent('new-message', photo.guid))).status).toBe(200);
      expect((await bb.post(hookB, bb.webhookEvent('new-message', text.guid))).status).toBe(200);
      await rx.waitFor(before + 2);
      const order = rx.received.slice(before).map((r) => JSON.parse(r.body.toString()).message_guid);
      expect(order).toEqual([photo.guid, text.guid]);
      // The conversation's event log agrees: the photo's event is the older one.
      const events = (await a.api('GET', '/api/v1/events?limit=10&type=message.received', undefined, { tenant: 'demo' })).json().events as { payload: { message_guid: string } }[];
      expect(events.slice(0, 2).map((e) => e.payload.message_guid).reverse()).toEqual([photo.guid, text.guid]);
    }
  });

  it("claims racing in both processes: each line's claimed rows are one worker's, and the line's oldest", async () => {
    const [sa, sb] = [a.testStore.store, b.testStore.store];
    // The store's claims only: the processes' own workers stay out of it meanwhile.
    await Promise.all([a.services.inbound.stop(), b.services.inbound.stop()]);
    for (let round = 0; round < 20; round++) {
      const now = 10_000_000 + round * 1_000;
      const lines = ['line_x', 'line_y', 'line_z'].map((l) => `${l}_${round}`);
      let n = 0;
      for (let i = 0; i < 4; i++) for (const line of lines) await sa.intake.record({ id: `in_r${String(round).padStart(2, '0')}_${String(n++).padStart(3, '0')}`, line_id: line, body: '{}', nowMs: now });
      const [x, y] = await Promise.all([sa.intake.claim(`wa${round}`, now, 60_000, 5), sb.intake.claim(`wb${round}`, now, 60_000, 5)]);
      const rows = await sa.intake.list(200);
      for (const line of lines) {
        const ofLine = rows.filter((r) => r.line_id === line).map((r) => r.id);
        const byA = x.filter((r) => r.line_id === line).map((r) => r.id);
        const byB = y.filter((r) => r.line_id === line).map((r) => r.id);
        expect(byA.length === 0 || byB.length === 0, `${line}: ${byA} / ${byB}`).toBe(true);
        const taken = [...byA, ...byB];
        expect(taken).toEqual(ofLine.slice(0, taken.length));
      }
      expect(x.length + y.length).toBeGreaterThan(0);
      await sa.database.db.deleteFrom('inbound_intake').where('line_id', 'in', lines).execute();
    }
    a.services.inbound.start();
    b.services.inbound.start();
  });

  it('while one process processes a slow row, the other sleeps between polls rather than claiming every 5 ms', async () => {
    const claims = [a, b].map((t) => {
      const counter = { n: 0 };
      const intake = t.testStore.store.intake;
      const claim = intake.claim.bind(intake);
      intake.claim = ((...args: Parameters<typeof claim>) => {
        counter.n++;
        return claim(...args);
      }) as typeof claim;
      return counter;
    });
    const contact = from();
    bb.messageLookupDelayMs = 2_000;
    const image = bb.addAttachment({ bytes: PNG, mimeType: 'image/png', transferName: 'slow.png' });
    const photo = bb.addIncoming({ from: contact, text: 'a photo from a slow Mac', attachments: [image] });
    const text = bb.addIncoming({ from: contact, text: 'and a text', dateCreated: photo.dateCreated + 1 });
    const before = rx.received.length;
    expect((await bb.post(hookA, bb.webhookEvent('new-message', photo.guid))).status).toBe(200);
    expect((await bb.post(hookB, bb.webhookEvent('new-message', text.guid))).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300)); // the photo's row is taken
    const start = claims.map((c) => c.n);
    await new Promise((r) => setTimeout(r, 1_000));
    const during = claims.map((c, i) => c.n - start[i]!);
    expect(during[0]! + during[1]!, `claims in 1 s: ${during}`).toBeLessThanOrEqual(6);
    await rx.waitFor(before + 2, 10_000);
    expect(rx.received.slice(before).map((r) => JSON.parse(r.body.toString()).message_guid)).toEqual([photo.guid, text.guid]);
    bb.messageLookupDelayMs = 0;
  });
});
