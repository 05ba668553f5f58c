/**
 * A line can report on a send (delivered, read, failed after all) before the send's answer is
 * stored: the report names a guid no message has yet. It is tried again for 30 s of business
 * time, reading the store each time, then given up. The report is made to come first by a double
 * at the driver boundary only: the simulator's send, which reports before it returns (as a
 * BlueBubbles webhook can overtake its send's answer). Real stores, both databases.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { eventually, firstTouch, newRecipient, prepareSandbox } from '../support/messaging.js';
import { sample } from '../support/metrics-text.js';
import { STORE_KINDS, createTestStore, type TestStore } from '../support/stores.js';
import { SIMULATOR_RECIPIENTS } from '../../src/drivers/simulator/reserved.js';
import type { LineDriver } from '../../src/drivers/types.js';
import type { Message } from '../../src/store/index.js';
import { RETRY_AFTER_MS, unmatchedReports } from '../../src/domain/messaging/unmatched-reports.js';
import { receiptWriter } from '../../src/domain/messaging/receipts.js';
import { testClock } from '../../src/clock.js';

/** Accepted, and the simulator reports nothing on it by itself. */
const QUIET = SIMULATOR_RECIPIENTS.undelivered;
const TOKEN = `metrics-${randomBytes(12).toString('hex')}`;
const PERIOD_MS = RETRY_AFTER_MS[RETRY_AFTER_MS.length - 1]!;

/**
 * Until the returned function is called, each text `t` sends calls `report` with the line's guid
 * and the message's id before the send returns: the line reports before the service stores the guid.
 */
function reportingFirst(t: TestApp, report: (lineId: string, guid: string, messageId: string) => Promise<void>): () => void {
  const drivers = t.services.drivers;
  const forLine = drivers.forLine;
  drivers.forLine = (line) => {
    const driver = forLine.call(drivers, line);
    return Object.create(driver, {
      sendText: {
        value: async (...args: Parameters<LineDriver['sendText']>) => {
          const sent = await driver.sendText(...args);
          await report(line.id, sent.guid, args[2]!.ref!);
          return sent;
        },
      },
    }) as LineDriver;
  };
  return () => {
    drivers.forLine = forLine;
  };
}

/** The give-up log lines naming `guid`. */
const gaveUp = (t: TestApp, guid: string) =>
  t.logs
    .join('')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.guid === guid && /^gave up a report/.test(String(l.msg)));

describe.each(STORE_KINDS)('reports that come before their send is stored (%s)', (kind) => {
  let t: TestApp;
  let tenantId: string;
  beforeAll(async () => {
    t = await startTestApp(kind, { METRICS_TOKEN: TOKEN });
    await prepareSandbox(t);
    tenantId = (await t.testStore.store.tenants.getBySlug('demo'))!.id;
  });
  afterAll(async () => t?.close());

  const stored = async (id: string) => (await t.testStore.store.messages.get(tenantId, id))!;
  const scrape = async () => (await t.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).body;

  it('a late failure reported first fails the message, with all a late failure does', async () => {
    const before = await scrape();
    const restore = reportingFirst(t, async (lineId, guid) => {
      // Nothing has this guid yet: not failed now.
      expect(await t.services.events.sendFailed(lineId, guid)).toBe(false);
    });
    let res;
    try {
      // The first message to QUIET: a first touch, whose chat is unpinned when it fails.
      res = await firstTouch(t, { phone: QUIET, body: 'failure first' });
    } finally {
      restore();
    }
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'sent' });
    const { message_id: id, chat_id: chatId } = res.json() as { message_id: string; chat_id: string };
    expect(await eventually(() => stored(id), (m) => m.status === 'failed')).toMatchObject({ status: 'failed', error_code: 4001 });
    // Counted, and the person's chat pins no line any more (its only message failed).
    expect(sample(await scrape(), 'blueline_messages_failed_after_send_total') - sample(before, 'blueline_messages_failed_after_send_total')).toBe(1);
    expect((await t.testStore.store.chats.getChat(tenantId, chatId))?.line_id).toBeNull();
    expect(t.services.unmatchedReports.held()).toBe(0);
  });

  it('a delivered and a read receipt reported first are applied once the guid is stored', async () => {
    let when: { at: number; before: Message } | undefined;
    const restore = reportingFirst(t, async (lineId, guid, messageId) => {
      const at = t.clock.now();
      await t.services.events.receipt(lineId, guid, 'delivered', at + 1);
      await t.services.events.receipt(lineId, guid, 'read', at + 2);
      when = { at, before: await stored(messageId) };
    });
    let res;
    try {
      res = await firstTouch(t, { phone: QUIET, body: 'receipts first' });
    } finally {
      restore();
    }
    expect(res.statusCode, res.body).toBe(200);
    // The receipts came while the message was still `sending`, with no guid to match.
    expect(when!.before).toMatchObject({ status: 'sending', provider_guid: null });
    const id = res.json().message_id as string;
    const m = await eventually(() => stored(id), (m) => m.status === 'read');
    expect(m).toMatchObject({ status: 'read', delivered_at: when!.at + 1, read_at: when!.at + 2 });
    expect(t.services.unmatchedReports.held()).toBe(0);
  });

  it('a report is tried for 30 s: applied when its send answers 25 s late, given up when its guid never appears', async () => {
    const never = `never-${randomBytes(6).toString('hex')}`;
    let reported!: () => void;
    const reportsMade = new Promise<void>((r) => (reported = r));
    let answer!: () => void;
    const answered = new Promise<void>((r) => (answer = r));
    let sentGuid = '';
    const restore = reportingFirst(t, async (lineId, guid) => {
      sentGuid = guid;
      await t.services.events.receipt(lineId, guid, 'delivered', t.clock.now());
      await t.services.events.receipt(lineId, never, 'delivered', t.clock.now());
      expect(await t.services.events.sendFailed(lineId, `${never}-failed`)).toBe(false);
      reported();
      await answered;
    });
    const sending = firstTouch(t, { phone: QUIET, body: 'answered late' });
    await reportsMade;
    restore();
    // The send's answer comes 25 s after its reports: they are still being tried.
    t.clock.advance(PERIOD_MS - 5_000);
    answer();
    const res = await sending;
    expect(res.statusCode, res.body).toBe(200);
    // Past the period: the last try applies the one, gives up the others.
    t.clock.advance(5_000);
    const id = res.json().message_id as string;
    expect(await eventually(() => stored(id), (m) => m.status === 'delivered')).toMatchObject({ status: 'delivered' });
    await eventually(async () => t.services.unmatchedReports.held(), (n) => n === 0);
    expect(t.services.unmatchedReports.held()).toBe(0);
    expect(gaveUp(t, never)).toMatchObject([{ report: 'delivered', line_id: res.json().phone_line_id }]);
    expect(gaveUp(t, `${never}-failed`)).toMatchObject([{ report: 'failed' }]);
    expect(gaveUp(t, sentGuid)).toEqual([]);
    // Nothing broke: a send now gets its receipts as always.
    const next = await firstTouch(t, { phone: newRecipient(), body: 'and then as usual' });
    expect(next.statusCode, next.body).toBe(200);
    expect(await eventually(() => stored(next.json().message_id), (m) => m.status === 'read')).toMatchObject({ status: 'read' });
  });
});

describe('a receipt another process got before this one stored the guid (postgres)', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await startTestApp('postgres');
    b = await startTestApp('postgres', {}, { join: a });
    await prepareSandbox(a);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('is applied by that process once the guid is in the database', async () => {
    const restore = reportingFirst(a, async (lineId, guid) => {
      await b.services.events.receipt(lineId, guid, 'read', b.clock.now());
    });
    let res;
    try {
      res = await firstTouch(a, { phone: QUIET, body: 'sent here, read there' });
    } finally {
      restore();
    }
    expect(res.statusCode, res.body).toBe(200);
    const tenantId = (await a.testStore.store.tenants.getBySlug('demo'))!.id;
    const m = await eventually(async () => (await a.testStore.store.messages.get(tenantId, res.json().message_id))!, (m) => m.status === 'read');
    expect(m).toMatchObject({ status: 'read' });
  });
});

describe.each(STORE_KINDS)('what waits for its guid is bounded (%s)', (kind) => {
  let ts: TestStore;
  beforeAll(async () => {
    ts = await createTestStore(kind);
    const { store } = ts;
    await store.accounts.insert({ id: 'acct_u', name: 'U', multi_tenant: false, email_verified: true, created_at: 1 }, { id: 'sec_u', plain: 'bl_sk_unmatched' });
    await store.tenants.insert({
      id: 'ten_u', account_id: 'acct_u', slug: 'unmatched', name: 'U', timezone: 'UTC', sending_window: { start: '00:00', end: '23:59' },
      daily_first_touch_cap: 100, rate_limit: { per_second: 10, burst: 20 }, status: 'active', created_at: 1,
    });
    await store.chats.ensureChat({ id: 'chat_u', tenant_id: 'ten_u', is_group: false, lead_id: null, line_id: null, convo_id: 'cv_u', chat_key: null, display_name: null, created_at: 1 });
  });
  afterAll(async () => ts?.cleanup());

  const sentAs = (guid: string) =>
    ts.store.messages.insert({
      id: `msg_${guid}`, tenant_id: 'ten_u', chat_id: 'chat_u', line_id: 'line-u', direction: 'outbound', sender_handle: '+14155550100',
      parts: [{ type: 'text', value: 'hi' }], effect: null, status: 'sent', provider_guid: guid, first_touch: false, error_code: null,
      sent_at: 1_000, delivered_at: null, read_at: null, edited_at: null,
    });

  it('holds at most its cap (the oldest given up first), and nothing once stopped', async () => {
    const clock = testClock();
    const logged: Record<string, unknown>[] = [];
    const held = unmatchedReports({ clock, log: { debug: (obj, msg) => logged.push({ ...obj, msg }) } }, { maxHeld: 2 });
    const writer = receiptWriter(ts.store);
    const report = (guid: string) => held.hold('delivered', 'line-u', guid, () => writer.apply('line-u', guid, 'delivered', 5_000));
    for (const guid of ['u0', 'u1', 'u2']) {
      expect(await writer.apply('line-u', guid, 'delivered', 5_000)).toBe(false);
      report(guid);
    }
    expect(held.held()).toBe(2);
    expect(logged).toMatchObject([{ guid: 'u0', line_id: 'line-u', report: 'delivered', msg: expect.stringMatching(/too many held/) }]);
    // The same report again adds nothing.
    report('u2');
    expect(held.held()).toBe(2);
    await sentAs('u0');
    await sentAs('u2');
    clock.advance(RETRY_AFTER_MS[0]);
    expect(await eventually(() => ts.store.messages.get('ten_u', 'msg_u2'), (m) => m?.status === 'delivered')).toMatchObject({ delivered_at: 5_000 });
    expect(held.held()).toBe(1);
    // u0 was given up: its message stays as it was.
    expect(await ts.store.messages.get('ten_u', 'msg_u0')).toMatchObject({ status: 'sent', delivered_at: null });
    await held.stop();
    expect(held.held()).toBe(0);
    report('u3');
    expect(held.held()).toBe(0);
  });
});
