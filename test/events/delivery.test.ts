import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { STORE_KINDS } from '../support/stores.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { eventually, prepareSandbox } from '../support/messaging.js';
import { verifyWebhook } from '../../src/index.js';
import { timeSortableId } from '../../src/domain/ids.js';
import { loadConfig } from '../../src/config.js';

const EVENT_ENV = {
  BLUELINE_ALLOW_PRIVATE_NETWORKS: '1',
  BLUELINE_WEBHOOK_BACKOFF_MS: '20,40',
  BLUELINE_WEBHOOK_TIMEOUT_MS: '300',
};

const hmac = (secret: string, ts: string, body: Buffer) => createHmac('sha256', secret).update(`${ts}.`).update(body).digest('hex');

describe.each(STORE_KINDS)('inbound → event log → signed webhook on %s', (kind) => {
  let t: TestApp;
  let rx: Receiver;
  let sub: { id: string; secret: string };
  let line: string;
  let guidCounter = 0;
  beforeAll(async () => {
    t = await startTestApp(kind, EVENT_ENV);
    await prepareSandbox(t);
    rx = await startReceiver();
    line = t.demo.phone_line_ids[0]!;
    const res = await t.api('POST', '/api/v1/webhook-subscriptions', { url: rx.url, events: ['message.received'] });
    expect(res.statusCode).toBe(201);
    sub = res.json();
    expect(sub.secret).toMatch(/^whsec_/);
  });
  afterAll(async () => {
    await rx.close();
    await t.close();
  });
  afterEach(() => rx.script([], 200));

  const inbound = (body: Record<string, unknown>) =>
    t.admin('POST', `/admin/v1/lines/${line}/simulate/inbound`, { guid: `guid-${++guidCounter}-${randomBytes(3).toString('hex')}`, ...body });
  const events = (query = '') => t.api('GET', `/api/v1/events${query}`, undefined, { tenant: 'demo' });
  const lastEvent = async () => (await events('?limit=1')).json().events[0];

  it('delivers every envelope field with both signature forms, over the stored raw bytes', async () => {
    const before = rx.received.length;
    const image = randomBytes(1500);
    const res = await inbound({
      from: '+14155550199',
      parts: [
        { type: 'text', value: 'Hi there' },
        { type: 'media', filename: 'pic.png', mime_type: 'image/png', content_base64: image.toString('base64') },
      ],
      guid: 'ABCD-1234',
    });
    expect(res.statusCode).toBe(202);
    const [got] = (await rx.waitFor(before + 1)).slice(before);
    const env = JSON.parse(got!.body.toString('utf8'));
    expect(env).toMatchObject({
      event: 'message.received',
      event_type: 'message.received',
      event_id: 'imessage:msg:ABCD-1234',
      api_version: 'v1',
      partner_id: 'demo',
      from: '+14155550199',
      to: '+15550100001',
      text: 'Hi there',
      message_guid: 'ABCD-1234',
      line_id: line,
    });
    expect(env.webhook_version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(Date.parse(env.timestamp)).not.toBeNaN();
    expect(env.trace_id).toMatch(/^tr_/);
    expect(env.data.chat).toMatchObject({ is_group: false, owner_handle: { handle: '+15550100001', service: 'imessage', is_me: true } });
    expect(env.data.chat.handles).toEqual([
      { handle: '+14155550199', service: 'imessage', is_me: false },
      { handle: '+15550100001', service: 'imessage', is_me: true },
    ]);
    expect(env.data.message).toMatchObject({ direction: 'inbound', service: 'imessage', sender_handle: { handle: '+14155550199', is_me: false }, read_at: null });
    expect(env.data.message.id).toMatch(/^msg_/);
    expect(Date.parse(env.data.message.sent_at)).not.toBeNaN();
    expect(env.data.message.parts[0]).toEqual({ type: 'text', value: 'Hi there' });
    expect(env.data.message.parts[1]).toMatchObject({ type: 'media', filename: 'pic.png', mime_type: 'image/png', size_bytes: 1500 });
    expect(env.data.message.parts[1].attachment_id).toMatch(/^in_/);
    expect(env.data.crm_deep_link).toContain(env.data.chat.id);

    const h = got!.headers;
    expect(h['content-type']).toBe('application/json');
    expect(h['x-webhook-event']).toBe('message.received');
    expect(h['x-webhook-event-id']).toBe('imessage:msg:ABCD-1234');
    expect(h['x-webhook-subscription-id']).toBe(sub.id);
    const ts = h['x-webhook-timestamp'] as string;
    expect(Math.abs(Number(ts) - Date.now() / 1000)).toBeLessThan(10);
    expect(h['x-webhook-signature']).toBe(`t=${ts},v1=${hmac(sub.secret, ts, got!.body)}`);
    expect(h['x-service-signature']).toBe(`v1,${ts},${hmac(sub.secret, ts, got!.body)}`);
    expect(h['x-service-event']).toBe('message.received');
    expect(h['x-service-event-id']).toBe('imessage:msg:ABCD-1234');
    expect(h['x-service-timestamp']).toBe(ts);
    expect(h['x-service-tenant']).toBeUndefined();
    expect(verifyWebhook({ rawBody: got!.body, headers: h, secret: sub.secret })).toEqual({ ok: true, timestamp: Number(ts) });

    // The inbound media is served byte for byte.
    const content = await t.api('GET', `/api/v1/attachments/${env.data.message.parts[1].attachment_id}/content`);
    expect(content.rawPayload.equals(image)).toBe(true);
    // The event record holds the same payload and the attempt.
    const rec = await eventually(lastEvent, (e) => e.delivery.status === 'delivered');
    expect(rec).toMatchObject({ type: 'message.received', event_id: 'imessage:msg:ABCD-1234', payload: env, delivery: { status: 'delivered', url: rx.url } });
    expect(rec.id).toMatch(/^evt_/);
    expect(rec.delivery.attempts).toEqual([{ at: expect.any(String), status: 200, duration_ms: expect.any(Number), subscription_id: sub.id }]);
    expect(rec.delivery.delivered_at).not.toBeNull();
  });

  it("files a returning contact's messages in the same direct chat, with the same chat in every envelope", async () => {
    const before = rx.received.length;
    for (const guid of ['RET-1', 'RET-2']) expect((await inbound({ from: '+14155550177', text: `hello ${guid}`, guid })).statusCode).toBe(202);
    const envs = (await rx.waitFor(before + 2)).slice(before).map((r) => JSON.parse(r.body.toString('utf8')));
    const [first, second] = envs.sort((a, b) => a.message_guid.localeCompare(b.message_guid));
    expect(second.data.chat.id).toBe(first.data.chat.id);
    expect(second.data.chat).toEqual(first.data.chat);
    expect(second.data.chat.handles).toEqual([
      { handle: '+14155550177', service: 'imessage', is_me: false },
      { handle: '+15550100001', service: 'imessage', is_me: true },
    ]);
    const listed = await t.api('GET', `/api/v1/chats/${first.data.chat.id}/messages`);
    expect(listed.json().messages.map((m: { id: string }) => m.id).sort()).toEqual([first.data.message.id, second.data.message.id].sort());
  });

  it('moves a direct chat to the line the contact wrote to: its events and replies name that line', async () => {
    const [lineA, lineB] = t.demo.phone_line_ids as [string, string];
    const from = '+14155550178';
    const before = rx.received.length;
    expect((await inbound({ from, text: 'to line A' })).statusCode).toBe(202);
    await rx.waitFor(before + 1);
    expect((await t.admin('POST', `/admin/v1/lines/${lineB}/simulate/inbound`, { from, text: 'now to line B' })).statusCode).toBe(202);
    const [toA, toB] = (await rx.waitFor(before + 2)).slice(before).map((r) => JSON.parse(r.body.toString('utf8')));
    expect(toA.line_id).toBe(lineA);
    expect(toB).toMatchObject({ line_id: lineB, data: { chat: { id: toA.data.chat.id, owner_handle: { handle: toB.to, is_me: true } } } });
    const reply = await t.api('POST', `/api/v1/chats/${toB.data.chat.id}/messages`, { message: { parts: [{ type: 'text', value: 'replying where you wrote' }] } });
    expect(reply.statusCode, reply.body).toBe(200);
    expect((await t.api('GET', `/api/v1/messages/${reply.json().message.id}`)).json().message.phone_line_id).toBe(lineB);
  });

  it("lists a group's members without the line itself, the sender always among them", async () => {
    const linePhone = (await t.api('GET', '/api/v1/phone-numbers')).json().phone_numbers.find((p: { id: string }) => p.id === line).phone_number;
    const before = rx.received.length;
    const chat = { chat_key: `iMessage;+;chat-members-${randomBytes(4).toString('hex')}`, handles: ['+14155550181', linePhone] };
    expect((await inbound({ from: '+14155550182', text: 'not in the list the provider gave', chat })).statusCode).toBe(202);
    const env = JSON.parse((await rx.waitFor(before + 1))[before]!.body.toString('utf8'));
    const handles: { handle: string; is_me: boolean }[] = env.data.chat.handles;
    expect(handles.filter((h) => !h.is_me).map((h) => h.handle).sort()).toEqual(['+14155550181', '+14155550182']);
    expect(handles.filter((h) => h.is_me)).toEqual([{ handle: linePhone, service: 'imessage', is_me: true }]);
    expect(handles.at(-1)!.handle).toBe(linePhone);
    expect(env.data.message.sender_handle).toEqual({ handle: '+14155550182', service: 'imessage', is_me: false });
  });

  it('records one event when the same guid is reported twice', async () => {
    const count = (await events('?limit=200')).json().count;
    await inbound({ from: '+14155550199', text: 'dup', guid: 'DUP-1' });
    await inbound({ from: '+14155550199', text: 'dup', guid: 'DUP-1' });
    expect((await events('?limit=200')).json().count).toBe(count + 1);
  });

  it('records one event and one message when the same guid is reported twice at once, with or without media', async () => {
    const count = (await events('?limit=200')).json().count;
    const media = [{ type: 'media', filename: 'dup.png', mime_type: 'image/png', content_base64: randomBytes(64).toString('base64') }];
    const sends = ['DUP-AT-ONCE-1', 'DUP-AT-ONCE-1', 'DUP-AT-ONCE-2', 'DUP-AT-ONCE-2'].map((guid, i) =>
      inbound({ from: '+14155550198', guid, ...(guid.endsWith('2') ? { parts: media } : { text: `dup ${i}` }) }),
    );
    expect((await Promise.all(sends)).map((r) => r.statusCode)).toEqual([202, 202, 202, 202]);
    const listed = (await events('?limit=200')).json();
    expect(listed.count).toBe(count + 2);
    const chatId = listed.events.find((e: { payload: { message_guid: string } }) => e.payload.message_guid === 'DUP-AT-ONCE-2').payload.data.chat.id;
    type Listed = { parts: { type: string; value?: string }[] };
    const messages: Listed[] = (await t.api('GET', `/api/v1/chats/${chatId}/messages`)).json().messages;
    expect(messages.filter((m) => m.parts.some((p) => p.type === 'media')).length).toBe(1);
    expect(messages.filter((m) => m.parts.some((p) => p.value?.startsWith('dup '))).length).toBe(1);
  });

  it.each([
    ['200', [200], 1, 'delivered'],
    ['400 (not retried)', [400], 1, 'failed'],
    ['500 three times', [500, 500, 500], 3, 'failed'],
    ['500, 502, then 200', [500, 502, 200], 3, 'delivered'],
    ['timeout', ['timeout', 'timeout', 'timeout'], 3, 'failed'],
    ['connection reset', ['reset', 'reset', 'reset'], 3, 'failed'],
  ] as const)('makes the right attempts for %s', async (_label, answers, attempts, status) => {
    rx.script([...answers], 200);
    await inbound({ from: '+14155550188', text: `script ${_label}` });
    const rec = await eventually(lastEvent, (e) => e.delivery.status !== 'pending' && e.delivery.attempts.length >= attempts, 8_000);
    await new Promise((r) => setTimeout(r, 150)); // no further attempt may follow
    const final = (await t.api('GET', `/api/v1/events/${rec.id}`, undefined, { tenant: 'demo' })).json();
    expect(final.delivery.status).toBe(status);
    expect(final.delivery.attempts).toHaveLength(attempts);
    for (const [i, a] of final.delivery.attempts.entries()) {
      const answer = answers[i];
      if (typeof answer === 'number') expect(a.status).toBe(answer);
      else expect(a).toMatchObject({ status: 0, error: expect.stringMatching(answer === 'timeout' ? /timeout/ : /connection/) });
    }
  });

  it('replays a failed event, appending fresh attempts and updating the status', async () => {
    rx.script([400]);
    await inbound({ from: '+14155550177', text: 'replay me' });
    const failed = await eventually(lastEvent, (e) => e.delivery.status === 'failed');
    // The operator's log says which event failed where: the receiver by host, never its path.
    const logged = t.logs.map((l) => JSON.parse(l)).find((l) => l.msg?.startsWith('webhook delivery failed') && l.event_id === failed.event_id);
    expect(logged).toMatchObject({ subscription_id: sub.id, receiver: new URL(rx.url).host, attempt: 1, status: 400 });
    expect(JSON.stringify(logged)).not.toContain('/hooks');
    const before = rx.received.length;
    const replay = await t.api('POST', `/api/v1/events/${failed.id}/replay`, undefined, { tenant: 'demo' });
    expect(replay.statusCode).toBe(200);
    expect(replay.json()).toEqual({ ok: true, downstream_status: 200, message: expect.any(String) });
    expect(rx.received.length).toBe(before + 1);
    expect(rx.received[before]!.body.toString()).toBe(JSON.stringify(failed.payload));
    const after = (await t.api('GET', `/api/v1/events/${failed.id}`, undefined, { tenant: 'demo' })).json();
    expect(after.delivery.status).toBe('delivered');
    expect(after.delivery.attempts.map((a: { status: number }) => a.status)).toEqual([400, 200]);

    rx.script([503]);
    const bad = await t.api('POST', `/api/v1/events/${failed.id}/replay`, undefined, { tenant: 'demo' });
    expect(bad.statusCode).toBe(502);
    expect(bad.json()).toEqual({ ok: false, error: 'replay_failed', downstream_status: 503, code: 4001, message: expect.any(String), retryable: true, trace_id: bad.headers['x-trace-id'] });
  });

  it('replays to one subscription only with ?subscription_id=', async () => {
    const rx2 = await startReceiver();
    const sub2 = (await t.api('POST', '/api/v1/webhook-subscriptions', { url: rx2.url, events: ['message.received'] })).json();
    await inbound({ from: '+14155550166', text: 'two destinations' });
    await rx2.waitFor(1);
    const ev = await eventually(lastEvent, (e) => e.delivery.status === 'delivered' && e.delivery.attempts.length === 2);
    const n1 = rx.received.length;
    const res = await t.api('POST', `/api/v1/events/${ev.id}/replay?subscription_id=${sub2.id}`, undefined, { tenant: 'demo' });
    expect(res.json().ok).toBe(true);
    expect(rx2.received).toHaveLength(2);
    expect(rx.received.length).toBe(n1);
    const unknown = await t.api('POST', `/api/v1/events/${ev.id}/replay?subscription_id=sub_nope`, undefined, { tenant: 'demo' });
    expect(unknown.json().error.code).toBe(2011);
    // An empty value (a client's unset variable) is refused, not read as "every destination".
    const empty = await t.api('POST', `/api/v1/events/${ev.id}/replay?subscription_id=`, undefined, { tenant: 'demo' });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error.code).toBe(1002);
    expect(rx.received.length).toBe(n1);
    expect(rx2.received).toHaveLength(2);
    await t.api('DELETE', `/api/v1/webhook-subscriptions/${sub2.id}`);
    await rx2.close();
  });

  it('signs with both secrets during a rotation overlap', async () => {
    const rotated = (await t.api('POST', `/api/v1/webhook-subscriptions/${sub.id}/rotate-secret`, {})).json();
    const before = rx.received.length;
    await inbound({ from: '+14155550155', text: 'rotating' });
    const got = (await rx.waitFor(before + 1))[before]!;
    const ts = got.headers['x-webhook-timestamp'] as string;
    expect(got.headers['x-webhook-signature']).toBe(`t=${ts},v1=${hmac(rotated.secret, ts, got.body)},v1=${hmac(sub.secret, ts, got.body)}`);
    expect(verifyWebhook({ rawBody: got.body, headers: got.headers, secret: sub.secret }).ok).toBe(true);
    expect(verifyWebhook({ rawBody: got.body, headers: got.headers, secret: rotated.secret }).ok).toBe(true);
    sub = { id: sub.id, secret: rotated.secret };
  });

  it('keeps every secret of overlapping rotations signing until its own overlap ends', async () => {
    const rx3 = await startReceiver();
    const s0 = (await t.api('POST', '/api/v1/webhook-subscriptions', { url: rx3.url, events: ['message.received'] })).json();
    const rotate = (overlap_hours: number) => t.api('POST', `/api/v1/webhook-subscriptions/${s0.id}/rotate-secret`, { overlap_hours });
    const signs = async () => {
      const before = rx3.received.length;
      await inbound({ from: '+14155550156', text: 'which secrets?' });
      const got = (await rx3.waitFor(before + 1))[before]!;
      return (secret: string) => verifyWebhook({ rawBody: got.body, headers: got.headers, secret }).ok;
    };
    try {
      const s1 = (await rotate(2)).json().secret;
      t.clock.advance(3600_000);
      const rotatedAt = t.clock.now();
      const second = (await rotate(2)).json();
      expect(Date.parse(second.previous_secret_expires_at) - rotatedAt).toBeGreaterThanOrEqual(2 * 3600_000);
      expect(Date.parse(second.previous_secret_expires_at) - t.clock.now()).toBeLessThanOrEqual(2 * 3600_000);
      let check = await signs();
      expect([s0.secret, s1, second.secret].map(check)).toEqual([true, true, true]);
      // s0's overlap (two hours from the first rotation) ends first; s1 signs an hour longer.
      t.clock.advance(3600_000 + 1_000);
      check = await signs();
      expect([s0.secret, s1, second.secret].map(check)).toEqual([false, true, true]);
      // At most five secrets sign at once: a rotation that would make a sixth waits (409/1012).
      for (let i = 0; i < 3; i++) expect((await rotate(2)).statusCode).toBe(200);
      const refused = await rotate(2);
      expect(refused.statusCode).toBe(409);
      expect(refused.json().error).toMatchObject({ code: 1012, retryable: false });
      expect(refused.json().error.message).toContain('secrets of this subscription are still valid');
      // A leak's answer is never refused for their number: overlap 0 leaves the new secret alone signing.
      const alone = await rotate(0);
      expect(alone.statusCode).toBe(200);
      check = await signs();
      expect(check(alone.json().secret)).toBe(true);
      expect([s0.secret, s1, second.secret].map(check)).toEqual([false, false, false]);
    } finally {
      await t.api('DELETE', `/api/v1/webhook-subscriptions/${s0.id}`);
      await rx3.close();
    }
  });

  it('lists with filters, an opaque cursor, and no gaps or repeats while events arrive', async () => {
    for (let i = 0; i < 5; i++) await inbound({ from: '+14155550144', text: `page ${i}` });
    const all = (await events('?limit=200')).json().events.map((e: { id: string }) => e.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let page = 0;
    do {
      const res: { events: { id: string }[]; next_cursor: string | null; count: number } = (await events(`?limit=3${cursor ? `&cursor=${cursor}` : ''}`)).json();
      expect(res.count).toBe(res.events.length);
      seen.push(...res.events.map((e) => e.id));
      cursor = res.next_cursor;
      if (page++ === 0) await inbound({ from: '+14155550144', text: 'arrives mid-listing' });
    } while (cursor);
    expect(seen).toEqual(all);
    expect(new Set(seen).size).toBe(seen.length);

    const lead = (await lastEvent()).lead_id;
    const byLead = (await events(`?lead_id=${lead}&limit=200`)).json().events;
    expect(byLead.length).toBeGreaterThanOrEqual(6);
    expect(byLead.every((e: { lead_id: string }) => e.lead_id === lead)).toBe(true);
    expect((await events('?status=failed&limit=200')).json().events.every((e: { delivery: { status: string } }) => e.delivery.status === 'failed')).toBe(true);
    expect((await events('?type=message.other')).json().count).toBe(0);
    const since = (await lastEvent()).created_at;
    expect((await events(`?since=${encodeURIComponent(since)}`)).json().count).toBe(0);
    for (const bad of ['?limit=0', '?limit=201', '?status=lost', '?since=yesterday', '?cursor=abc']) {
      expect((await events(bad)).json().error.code, bad).toBe(1002);
    }
  });

  it('requires the tenant header on every event route and keeps tenants apart', async () => {
    const ev = await lastEvent();
    for (const [method, url] of [['GET', '/api/v1/events'], ['GET', `/api/v1/events/${ev.id}`], ['POST', `/api/v1/events/${ev.id}/replay`], ['GET', '/api/v1/dev-inbox'], ['GET', '/api/v1/events/stream']] as const) {
      const res = await t.api(method, url);
      expect(res.statusCode, url).toBe(404);
      expect(res.json().error.code, url).toBe(2001);
    }
    const other = (await t.admin('POST', '/admin/v1/accounts', { name: 'Other events' })).json();
    await t.admin('POST', '/admin/v1/tenants', { account_id: other.account.id, slug: 'other-events' });
    const as = (url: string, method = 'GET') => t.api(method, url, undefined, { secret: other.signing_secret, tenant: 'other-events' });
    expect((await as(`/api/v1/events/${ev.id}`)).json().error.code).toBe(2011);
    expect((await as(`/api/v1/events/${ev.id}/replay`, 'POST')).json().error.code).toBe(2011);
    expect((await as('/api/v1/events')).json().count).toBe(0);
    expect((await as(`/api/v1/webhook-subscriptions/${sub.id}`)).json().error.code).toBe(2011);
  });

  it('validates subscriptions: event types, URL rules', async () => {
    const bad = async (body: object, code: number) => expect((await t.api('POST', '/api/v1/webhook-subscriptions', body)).json().error?.code, JSON.stringify(body)).toBe(code);
    await bad({ url: rx.url, events: ['message.bounced'] }, 1002);
    await bad({ url: 'ftp://example.com/x', events: ['message.received'] }, 1002);
    await bad({ url: 'https://user:pw@example.com/x', events: ['message.received'] }, 1002);
    await bad({ events: ['message.received'] }, 1001);
    const list = (await t.api('GET', '/api/v1/webhook-subscriptions')).json().subscriptions;
    expect(JSON.stringify(list)).not.toContain('whsec_');
    // Spaces around a URL are not part of it: stored and delivered to without them.
    const padded = await t.api('POST', '/api/v1/webhook-subscriptions', { url: `  ${rx.url}/padded  `, events: ['message.received'] });
    expect(padded.statusCode).toBe(201);
    expect(padded.json().url).toBe(`${rx.url}/padded`);
    await t.api('DELETE', `/api/v1/webhook-subscriptions/${padded.json().id}`);
  });
});

describe('without private networks', () => {
  it('refuses loopback webhook URLs', async () => {
    const t = await startTestApp('sqlite');
    try {
      const res = await t.api('POST', '/api/v1/webhook-subscriptions', { url: 'https://127.0.0.1/hook', events: ['message.received'] });
      expect(res.json().error.code).toBe(1002);
      const mapped = await t.api('POST', '/api/v1/webhook-subscriptions', { url: 'https://[::ffff:127.0.0.1]/hook', events: ['message.received'] });
      expect(mapped.json().error.code).toBe(1002);
    } finally {
      await t.close();
    }
  });
});

describe('dev inbox', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite', EVENT_ENV);
    await prepareSandbox(t);
  });
  afterAll(async () => t.close());

  it('records without any POST, lists through /dev-inbox, and refuses replay (1002)', async () => {
    const sub = await t.api('POST', '/api/v1/webhook-subscriptions', { url: 'https://dev-inbox', events: ['message.received'] });
    expect(sub.statusCode).toBe(201);
    const line = t.demo.phone_line_ids[0];
    const start = new Date(t.clock.now() - 1).toISOString();
    await t.admin('POST', `/admin/v1/lines/${line}/simulate/inbound`, { from: '+14155550133', text: 'one' });
    t.clock.advance(1_000);
    await t.admin('POST', `/admin/v1/lines/${line}/simulate/inbound`, { from: '+14155550133', text: 'two' });
    const inbox = (await t.api('GET', `/api/v1/dev-inbox?since=${encodeURIComponent(start)}`, undefined, { tenant: 'demo' })).json();
    expect(inbox.events.map((e: { payload: { text: string } }) => e.payload.text)).toEqual(['one', 'two']);
    expect(inbox.events.every((e: { delivery: { status: string; attempts: unknown[] } }) => e.delivery.status === 'dev_inbox' && e.delivery.attempts.length === 0)).toBe(true);
    const later = (await t.api('GET', `/api/v1/dev-inbox?since=${encodeURIComponent(inbox.events[0].created_at)}`, undefined, { tenant: 'demo' })).json();
    expect(later.events.map((e: { payload: { text: string } }) => e.payload.text)).toEqual(['two']);
    const replay = await t.api('POST', `/api/v1/events/${inbox.events[0].id}/replay`, undefined, { tenant: 'demo' });
    expect(replay.statusCode).toBe(400);
    expect(replay.json().error.code).toBe(1002);
  });

  it('a subscription moved to the dev inbox while a retry is due: the retry makes no request, and the event is in the dev inbox', async () => {
    const app = await startTestApp('sqlite', { ...EVENT_ENV, BLUELINE_WEBHOOK_BACKOFF_MS: '1000,1000' });
    const rx = await startReceiver(503);
    try {
      await prepareSandbox(app);
      const sub = (await app.api('POST', '/api/v1/webhook-subscriptions', { url: rx.url, events: ['message.received'] })).json();
      const start = new Date(app.clock.now() - 1).toISOString();
      await app.admin('POST', `/admin/v1/lines/${app.demo.phone_line_ids[0]}/simulate/inbound`, { from: '+14155550134', text: 'moved meanwhile' });
      await rx.waitFor(1); // the first attempt: 503, a retry is due in about a second
      expect((await app.api('PATCH', `/api/v1/webhook-subscriptions/${sub.id}`, { url: 'https://dev-inbox' })).statusCode).toBe(200);
      const inbox = await eventually(
        async () => (await app.api('GET', `/api/v1/dev-inbox?since=${encodeURIComponent(start)}`, undefined, { tenant: 'demo' })).json().events as { id: string; payload: { text: string } }[],
        (events) => events.length > 0,
        5_000,
      );
      expect(inbox.map((e) => e.payload.text)).toEqual(['moved meanwhile']);
      const event = (await app.api('GET', `/api/v1/events/${inbox[0]!.id}`, undefined, { tenant: 'demo' })).json();
      const attempts = event.delivery.attempts as { status?: number | null; error?: string }[];
      expect(attempts).toHaveLength(2);
      expect(attempts[0]!.status).toBe(503);
      expect(attempts[1]!.error).toContain('now points at the dev inbox: not sent');
      expect(rx.received).toHaveLength(1);
    } finally {
      await rx.close();
      await app.close();
    }
  });

  /** Events recorded straight into the store, so several can share one millisecond. */
  async function recordDevInboxEvents(times: number[]): Promise<string[]> {
    const tenant = (await t.testStore.store.tenants.getBySlug('demo'))!;
    const ids: string[] = [];
    for (const [i, at] of times.entries()) {
      // The id's time part is its created_at, as for every recorded event; the rest counts up.
      const id = `evt_${timeSortableId(at).slice(0, 10)}${String(i).padStart(16, '0')}`;
      await t.testStore.store.events.insertEvent({
        id, tenant_id: tenant.id, type: 'message.received', event_id: `imessage:msg:paging-${at}-${i}`, lead_id: null, convo_id: null,
        payload: JSON.stringify({ n: i }), status: 'dev_inbox', dev_inbox: true, delivered_at: null, created_at: at,
      });
      ids.push(id);
    }
    return ids;
  }

  it('pages through events that share a millisecond without losing any, even with limit=1', async () => {
    t.clock.advance(60_000);
    const base = t.clock.now();
    // 43 events; two milliseconds hold 20 each.
    const times = [base, ...Array(20).fill(base + 1), base + 2, ...Array(20).fill(base + 3), base + 4];
    const recorded = await recordDevInboxEvents(times);
    for (const limit of [1, 7]) {
      const seen: string[] = [];
      const pageSizes: number[] = [];
      let since = new Date(base - 1).toISOString();
      for (let page = 0; page < 100; page++) {
        const res = (await t.api('GET', `/api/v1/dev-inbox?limit=${limit}&since=${encodeURIComponent(since)}`, undefined, { tenant: 'demo' })).json();
        expect(res.count).toBe(res.events.length);
        if (res.count === 0) break;
        seen.push(...res.events.map((e: { id: string }) => e.id));
        pageSizes.push(res.count);
        since = res.next_since;
      }
      expect(seen, `limit=${limit}`).toEqual(recorded);
      // A page cut inside a shared millisecond carries the rest of it.
      if (limit === 1) expect(pageSizes).toEqual([1, 20, 1, 20, 1]);
    }
  });

  it('requires ISO 8601 for since on the event list, the dev inbox and the stream (400 / 1002)', async () => {
    const routes = ['/api/v1/events', '/api/v1/dev-inbox', '/api/v1/events/stream'];
    for (const bad of ['0', '1700000000000', 'March 7, 2020', '2020-03-07T10:00:00', '2020-02-30', '2020-02-30T00:00:00Z', '07/03/2020', '2020-03-07T25:00:00Z']) {
      for (const route of routes) {
        const res = await t.api('GET', `${route}?since=${encodeURIComponent(bad)}`, undefined, { tenant: 'demo' });
        expect(res.statusCode, `${route} since=${bad}`).toBe(400);
        expect(res.json().error.code, `${route} since=${bad}`).toBe(1002);
      }
    }
    const first = (await t.api('GET', '/api/v1/dev-inbox?limit=1', undefined, { tenant: 'demo' })).json().events[0];
    const at = Date.parse(first.created_at);
    const offset = new Date(at + 3600_000).toISOString().replace('Z', '+01:00');
    for (const good of ['2000-01-01', new Date(at).toISOString(), offset, offset.replace('+01:00', '+0100')]) {
      for (const route of routes.slice(0, 2)) {
        const res = await t.api('GET', `${route}?since=${encodeURIComponent(good)}`, undefined, { tenant: 'demo' });
        expect(res.statusCode, `${route} since=${good}`).toBe(200);
      }
    }
    // An offset is honoured, even with its '+' left unencoded (it arrives as a space): 1 ms before
    // the first event, written in +01:00, still finds it.
    const justBefore = new Date(at - 1 + 3600_000).toISOString().replace('Z', '+01:00');
    const inbox = (await t.api('GET', `/api/v1/dev-inbox?limit=1&since=${justBefore}`, undefined, { tenant: 'demo' })).json();
    expect(inbox.events[0].id).toBe(first.id);
  });
});

describe('subscription URLs that mean the dev inbox', () => {
  // :443 is https's own port: the same URL (README), unlike any other port (refused below).
  it.each(['https://DEV-INBOX', 'https://dev-inbox/', 'https://Dev-Inbox./', 'https://dev-inbox:443'])('records without any POST for %s', async (url) => {
    const t = await startTestApp('sqlite', EVENT_ENV);
    try {
      await prepareSandbox(t);
      const sub = await t.api('POST', '/api/v1/webhook-subscriptions', { url, events: ['message.received'] });
      expect(sub.statusCode).toBe(201);
      expect(sub.json().url).toBe('https://dev-inbox');
      await t.admin('POST', `/admin/v1/lines/${t.demo.phone_line_ids[0]}/simulate/inbound`, { from: '+14155550133', text: 'to the inbox' });
      const inbox = (await t.api('GET', '/api/v1/dev-inbox', undefined, { tenant: 'demo' })).json();
      expect(inbox.events.map((e: { payload: { text: string } }) => e.payload.text)).toEqual(['to the inbox']);
      expect(inbox.events[0].delivery).toEqual({ status: 'dev_inbox', url: 'https://dev-inbox', attempts: [], delivered_at: null });
    } finally {
      await t.close();
    }
  });

  it('reports the real destination\'s result for an event that also goes to the dev inbox (docs/decisions.md)', async () => {
    const t = await startTestApp('sqlite', EVENT_ENV);
    const rx = await startReceiver(400);
    try {
      await prepareSandbox(t);
      await t.api('POST', '/api/v1/webhook-subscriptions', { url: 'https://dev-inbox', events: ['message.received'] });
      await t.api('POST', '/api/v1/webhook-subscriptions', { url: rx.url, events: ['message.received'] });
      await t.admin('POST', `/admin/v1/lines/${t.demo.phone_line_ids[0]}/simulate/inbound`, { from: '+14155550134', text: 'both' });
      // The receiver's 400 ends its delivery: the event is failed, not dev_inbox, and still in the inbox.
      const listed = await eventually(
        async () => (await t.api('GET', '/api/v1/dev-inbox', undefined, { tenant: 'demo' })).json().events[0],
        (e) => e?.delivery.status === 'failed',
      );
      expect(listed.delivery).toMatchObject({ status: 'failed', url: rx.url });
      expect((await t.api('GET', '/api/v1/events?status=dev_inbox', undefined, { tenant: 'demo' })).json().events).toEqual([]);
    } finally {
      await rx.close();
      await t.close();
    }
  });

  it('refuses a dev-inbox URL with more than the host, instead of posting to a host named dev-inbox', async () => {
    const t = await startTestApp('sqlite', EVENT_ENV);
    try {
      for (const url of ['https://dev-inbox/hooks', 'https://dev-inbox?x=1', 'http://dev-inbox', 'https://dev-inbox:8443']) {
        const res = await t.api('POST', '/api/v1/webhook-subscriptions', { url, events: ['message.received'] });
        expect(res.statusCode, url).toBe(400);
        expect(res.json().error.code, url).toBe(1002);
      }
    } finally {
      await t.close();
    }
  });
});

describe('data.crm_deep_link', () => {
  const link = async (t: TestApp) => {
    await prepareSandbox(t);
    await t.api('POST', '/api/v1/webhook-subscriptions', { url: 'https://dev-inbox', events: ['message.received'] });
    await t.admin('POST', `/admin/v1/lines/${t.demo.phone_line_ids[0]}/simulate/inbound`, { from: '+14155550134', text: 'link me' });
    const ev = (await t.api('GET', '/api/v1/dev-inbox', undefined, { tenant: 'demo' })).json().events[0];
    return { url: ev.payload.data.crm_deep_link as string, chatId: ev.payload.data.chat.id as string };
  };

  it.each([
    [{}, 'http://127.0.0.1:8787'],
    [{ HOST: '0.0.0.0', PORT: '9090' }, 'http://127.0.0.1:9090'],
    [{ HOST: '::', PORT: '9091' }, 'http://[::1]:9091'],
    [{ PUBLIC_BASE_URL: 'https://blueline.example.com/' }, 'https://blueline.example.com'],
  ])('is an absolute URL of the chat\'s messages in this API (%o)', async (env, base) => {
    const t = await startTestApp('sqlite', { ...EVENT_ENV, ...env });
    try {
      const { url, chatId } = await link(t);
      expect(url).toBe(`${base}/api/v1/chats/${chatId}/messages`);
      expect(new URL(url).href).toBe(url);
      // It leads somewhere: with the tenant's credentials it lists the message.
      const res = await t.api('GET', new URL(url).pathname);
      expect(res.statusCode).toBe(200);
      expect(res.json().messages[0].parts).toEqual([{ type: 'text', value: 'link me' }]);
    } finally {
      await t.close();
    }
  });

  it("follows the operator's BLUELINE_DEEP_LINK_TEMPLATE", async () => {
    const t = await startTestApp('sqlite', { ...EVENT_ENV, BLUELINE_DEEP_LINK_TEMPLATE: 'https://crm.example.com/{tenant}/imessage/{chat_id}?src=blueline' });
    try {
      const { url, chatId } = await link(t);
      expect(url).toBe(`https://crm.example.com/demo/imessage/${chatId}?src=blueline`);
    } finally {
      await t.close();
    }
    expect(() => loadConfig({ BLUELINE_DEEP_LINK_TEMPLATE: 'https://crm.example.com/no-placeholder' })).toThrow(/\{chat_id\}/);
    expect(() => loadConfig({ BLUELINE_DEEP_LINK_TEMPLATE: 'crm/{chat_id}' })).toThrow(/http\(s\) URL/);
  });
});
