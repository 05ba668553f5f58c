/**
 * Inbound from BlueBubbles is never lost (issue 16, item 1): a webhook is stored before it is
 * answered and processed from the store; messages no webhook brought (Blueline stopped, the
 * Mac unreachable) are found by catch-up through BlueBubbles' message query, each once, in order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.js';
import { eventually, prepareSandbox } from '../../support/messaging.js';
import { freePort } from '../../support/ports.js';
import { STORE_KINDS } from '../../support/stores.js';
import { StandIn } from './standin.js';
import { PNG } from './helpers.js';
import { handleBlueBubblesWebhook } from '../../../src/drivers/bluebubbles/inbound.js';
import { intakeWake } from '../../../src/intake/wake.js';
import { intakeWorker } from '../../../src/intake/worker.js';
import { ATTACHMENT_WAIT_MS } from '../../../src/intake/catch-up.js';

const INTERVAL_MS = 60_000;
const RETRY_MS = 5_000;

describe.each(STORE_KINDS)('BlueBubbles inbound that is never lost, on %s', (kind) => {
  let t: TestApp;
  let bb: StandIn;
  let lineId: string;
  let hookUrl: string;
  let sender = 0;
  const from = () => `+1415555${String(7000 + sender++).padStart(4, '0')}`;

  /** The tenant's message.received events as guids, oldest first. */
  async function receivedGuids(): Promise<string[]> {
    const res = await t.api('GET', '/api/v1/events?limit=200&type=message.received', undefined, { tenant: 'demo' });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json().events as { event_id: string }[]).map((e) => e.event_id.replace(/^imessage:msg:/, '')).reverse();
  }
  async function waitForGuids(want: string[], ms = 5_000) {
    const got = await eventually(receivedGuids, (g) => want.every((w) => g.includes(w)), ms);
    expect(got).toEqual(expect.arrayContaining(want));
    return got;
  }
  /** Moves the service clock to the line's next catch-up pass (once the one under way, if any, is over). */
  async function untilNextPass(expectedWaitMs: number) {
    const s = await eventually(async () => t.services.inbound.catchUp.lineStatus(lineId), (x) => x !== undefined && !x.running);
    const wait = s!.dueAt - t.clock.now();
    expect(wait).toBeLessThanOrEqual(expectedWaitMs);
    t.clock.advance(Math.max(0, wait));
  }
  /** Until the line's last catch-up pass found its Mac down (or up). */
  const lineSeen = (down: boolean) =>
    eventually(async () => t.services.inbound.catchUp.lineStatus(lineId), (s) => s?.down === down && !s.running);

  beforeAll(async () => {
    const port = await freePort();
    t = await startTestApp(kind, {
      BLUELINE_ALLOW_PRIVATE_NETWORKS: '1',
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      BLUELINE_WORKER_POLL_MS: '20',
      BLUELINE_CATCHUP_INTERVAL_MS: String(INTERVAL_MS),
      BLUELINE_CATCHUP_RETRY_MS: String(RETRY_MS),
      BLUELINE_CATCHUP_PAGE_SIZE: '2',
    });
    await t.app.listen({ port, host: '127.0.0.1' });
    await prepareSandbox(t);
    bb = await new StandIn().start();
    // History from before the line was connected is not imported.
    bb.addIncoming({ from: from(), text: 'old history', dateCreated: Date.now() - 3_600_000 });
    const res = await t.admin('POST', '/admin/v1/lines', { tenant: 'demo', phone_number: '+14155550690', driver: 'bluebubbles', driver_config: bb.config() });
    expect(res.statusCode, res.body).toBe(201);
    lineId = res.json().phone_line.id;
    hookUrl = (await eventually(async () => bb.webhooks, (w) => w.length > 0))[0]!.url;
    // The first catch-up takes the newest message on the Mac as its starting mark.
    await eventually(() => t.testStore.store.intake.cursor(lineId), (c) => c?.high_water_ms != null && c.locked_by === null);
  });
  afterAll(async () => {
    await bb.stop();
    await t.close();
  });

  it('stores a webhook before answering it, so one answered but not yet processed survives the workers stopping', async () => {
    await t.services.inbound.stop(); // as if the process died right after answering
    const msg = bb.addIncoming({ from: from(), text: 'answered, then the process stopped' });
    const posted = await bb.post(hookUrl, bb.webhookEvent('new-message', msg.guid));
    expect(posted.status).toBe(200);
    const stored = await t.testStore.store.intake.list();
    expect(stored.map((r) => ({ line: r.line_id, guid: JSON.parse(r.body).data.guid }))).toEqual([{ line: lineId, guid: msg.guid }]);
    await new Promise((r) => setTimeout(r, 100));
    expect(await receivedGuids()).not.toContain(msg.guid);

    t.services.inbound.start();
    expect(await waitForGuids([msg.guid])).toContain(msg.guid);
    await eventually(() => t.testStore.store.intake.list(), (l) => l.length === 0);
    expect(await t.testStore.store.intake.list()).toEqual([]);
    expect(await receivedGuids()).not.toContain([...bb.messages.values()][0]!.guid); // the old history
  });

  it('catches up at start on what arrived while it was stopped: each once, in order, paged through the message query', async () => {
    await t.services.inbound.stop();
    const missed = [1, 2, 3, 4, 5].map((i) => bb.addIncoming({ from: from(), text: `missed ${i}`, dateCreated: Date.now() + i }));
    const before = bb.requestsTo('POST', '/api/v1/message/query').length;
    t.services.inbound.start();
    const guids = await waitForGuids(missed.map((m) => m.guid));
    const got = guids.filter((g) => missed.some((m) => m.guid === g));
    expect(got).toEqual(missed.map((m) => m.guid));

    const queries = bb.requestsTo('POST', '/api/v1/message/query').slice(before);
    expect(queries[0]!.json).toEqual({ after: expect.any(Number), sort: 'ASC', limit: 2, offset: 0, with: ['chat', 'chat.participants', 'attachment', 'attributedBody'] });
    expect(queries.map((q) => q.json.offset)).toEqual([0, 2, 4, 6].slice(0, queries.length));
    expect(queries.length).toBeGreaterThanOrEqual(3);
    // The mark moved to the newest message walked.
    expect((await t.testStore.store.intake.cursor(lineId))?.high_water_ms).toBe(missed[4]!.dateCreated);
  });

  it('asks again every interval of the service clock, and a message that came by webhook too is one event', async () => {
    const viaWebhook = bb.addIncoming({ from: from(), text: 'by webhook' });
    expect((await bb.post(hookUrl, bb.webhookEvent('new-message', viaWebhook.guid))).status).toBe(200);
    await waitForGuids([viaWebhook.guid]);
    const quiet = bb.addIncoming({ from: from(), text: 'no webhook for this one' });
    await new Promise((r) => setTimeout(r, 150));
    expect(await receivedGuids()).not.toContain(quiet.guid);

    await untilNextPass(INTERVAL_MS);
    const guids = await waitForGuids([quiet.guid]);
    expect(guids.filter((g) => g === viaWebhook.guid || g === quiet.guid)).toEqual([viaWebhook.guid, quiet.guid]);
    // Each message once, whichever way it came.
    const all = await receivedGuids();
    expect(new Set(all).size).toBe(all.length);
  });

  it('retries an attachment still coming from iCloud (500 on download) until it is on the Mac, and catch-up holds its mark before it', async () => {
    await t.services.inbound.stop();
    const store = t.testStore.store;
    const line = (await store.lines.get(lineId))!;
    // The service's worker, driven by hand with no wait between attempts (its schedule is wall time).
    const worker = intakeWorker(
      { store, wake: intakeWake(), handle: (id, body) => handleBlueBubblesWebhook(t.services.drivers.contextFor(line), id, body) },
      { pollMs: 20, leaseMs: 30_000, batch: 8, backoffMs: [0, 0, 0] },
    );
    const image = bb.addAttachment({ bytes: PNG, mimeType: 'image/png', transferName: 'from-icloud.png' });
    bb.notOnDisk.add(image);
    const msg = bb.addIncoming({ from: from(), text: 'photo on its way', attachments: [image] });
    expect((await bb.post(hookUrl, bb.webhookEvent('new-message', msg.guid))).status).toBe(200);
    await worker.tick();
    const [row] = await store.intake.list();
    expect(row).toMatchObject({ state: 'pending', attempts: 1 }); // retried, not failed
    expect(row!.last_error).toMatch(/line_down: .*does not exist in disk/);
    expect(await receivedGuids()).not.toContain(msg.guid);
    bb.arrive(image);
    await worker.tick();
    expect(await store.intake.list()).toEqual([]);
    expect(await receivedGuids()).toContain(msg.guid);

    // Catch-up: a message whose file is not there yet stops the pass before the mark passes it.
    const markBefore = (await store.intake.cursor(lineId))!.high_water_ms!;
    const image2 = bb.addAttachment({ bytes: PNG, mimeType: 'image/png', transferName: 'later.png' });
    bb.notOnDisk.add(image2);
    const quiet = bb.addIncoming({ from: from(), text: 'no webhook, file not there yet', attachments: [image2], dateCreated: Math.max(Date.now(), markBefore + 1) });
    const first = await t.services.inbound.catchUp.pass(line);
    expect(first).toMatchObject({ ok: false });
    expect((await store.intake.cursor(lineId))!.high_water_ms!).toBeLessThan(quiet.dateCreated);
    bb.arrive(image2);
    expect(await t.services.inbound.catchUp.pass(line)).toMatchObject({ ok: true, reported: 1 });
    expect((await store.intake.cursor(lineId))!.high_water_ms).toBe(quiet.dateCreated);
    expect(await receivedGuids()).toContain(quiet.guid);

    // A file that never comes holds catch-up back for ATTACHMENT_WAIT_MS, then its message is given up.
    const never = bb.addAttachment({ bytes: PNG, mimeType: 'image/png', transferName: 'never.png' });
    bb.notOnDisk.add(never);
    const stuck = bb.addIncoming({ from: from(), text: 'its file never reaches the Mac', attachments: [never], dateCreated: quiet.dateCreated + 1 });
    const after = bb.addIncoming({ from: from(), text: 'the next message', dateCreated: quiet.dateCreated + 2 });
    expect(await t.services.inbound.catchUp.pass(line)).toMatchObject({ ok: false });
    expect(await receivedGuids()).not.toContain(after.guid);
    t.clock.advance(ATTACHMENT_WAIT_MS + 60_000);
    expect(await t.services.inbound.catchUp.pass(line)).toMatchObject({ ok: true, reported: 1 });
    expect((await store.intake.cursor(lineId))!.high_water_ms).toBe(after.dateCreated);
    const received = await receivedGuids();
    expect(received).toContain(after.guid);
    expect(received).not.toContain(stuck.guid);
    t.services.inbound.start();
  });

  it('catches up when the Mac is back after being down: at once on its next webhook, else at the retry interval', async () => {
    await bb.stop();
    await untilNextPass(INTERVAL_MS); // the regular pass finds the line down
    expect((await lineSeen(true))?.down).toBe(true);
    const whileDown = bb.addIncoming({ from: from(), text: 'sent while the Mac was unreachable' });
    await bb.start(bb.port);

    // Its next webhook shows the Mac is back: the missed message comes without moving the clock.
    const next = bb.addIncoming({ from: from(), text: 'the first webhook after' });
    expect((await bb.post(hookUrl, bb.webhookEvent('new-message', next.guid))).status).toBe(200);
    const guids = await waitForGuids([whileDown.guid, next.guid]);
    expect(guids.filter((g) => g === whileDown.guid)).toHaveLength(1);

    // Down again, and back without a webhook: the retry interval finds what was missed.
    await bb.stop();
    await untilNextPass(INTERVAL_MS);
    expect((await lineSeen(true))?.down).toBe(true);
    const quiet = bb.addIncoming({ from: from(), text: 'missed while down, no webhook after' });
    await bb.start(bb.port);
    await untilNextPass(RETRY_MS);
    await waitForGuids([quiet.guid]);
    expect((await lineSeen(false))?.down).toBe(false);
    const all = await receivedGuids();
    expect(new Set(all).size).toBe(all.length);
  });
});
