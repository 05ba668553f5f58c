/**
 * Recording inbound messages while two processes share one database: on PostgreSQL a direct
 * text message is written in one statement from reads made just before (store/inbound-direct.ts),
 * so what those reads saw may have changed by the write. Whatever the races, each message is
 * one event delivered once, and a contact has one lead and one direct conversation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { STORE_KINDS } from '../support/stores.js';

const ENV = { BLUELINE_ALLOW_PRIVATE_NETWORKS: '1', BLUELINE_WEBHOOK_BACKOFF_MS: '20,40', BLUELINE_WEBHOOK_TIMEOUT_MS: '300' };

describe.each(STORE_KINDS)('inbound recording under races (%s)', (kind) => {
  let a: TestApp;
  let b: TestApp;
  let rx: Receiver;
  let handleSeq = 0;
  const newHandle = () => `+1628555${String(1000 + handleSeq++).padStart(4, '0')}`;
  const inject = (t: TestApp, body: Record<string, unknown>, line = 0) => t.admin('POST', `/admin/v1/lines/${a.demo.phone_line_ids[line]}/simulate/inbound`, body);
  const payloads = () => rx.received.map((r) => JSON.parse(r.body.toString()));
  const listEvents = async () => (await a.api('GET', '/api/v1/events?limit=100', undefined, { tenant: 'demo' })).json().events as { lead_id: string; payload: { from: string; message_guid: string } }[];

  beforeAll(async () => {
    a = await startTestApp(kind, ENV);
    // Several processes share PostgreSQL only; on SQLite the same races come from one process.
    b = kind === 'postgres' ? await startTestApp(kind, ENV, { join: a }) : a;
    rx = await startReceiver();
    expect((await a.api('POST', '/api/v1/webhook-subscriptions', { url: rx.url, events: ['message.received'] })).statusCode).toBe(201);
  });
  afterAll(async () => {
    await rx.close();
    if (b !== a) await b.close();
    await a.close();
  });

  it("a new contact's first messages arriving at once in both processes: one conversation, each message delivered once", async () => {
    const from = newHandle();
    const before = rx.received.length;
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => inject(i % 2 ? b : a, { from, text: `hello ${i}`, guid: `first-${kind}-${i}` })));
    expect(results.map((r) => r.statusCode)).toEqual(Array(12).fill(202));
    await rx.waitFor(before + 12);
    await new Promise((r) => setTimeout(r, 200)); // a duplicate would arrive meanwhile
    const mine = payloads().filter((p) => p.from === from);
    expect(mine.map((p) => p.text).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `hello ${i}`).sort());
    expect(new Set(mine.map((p) => p.data.chat.id)).size).toBe(1);
    expect(mine[0].data.chat.is_group).toBe(false);
    // One lead: the events all name it, and the conversation lists every message.
    const leadIds = new Set((await listEvents()).filter((e) => e.payload.from === from).map((e) => e.lead_id));
    expect(leadIds.size).toBe(1);
    const chatId = mine[0].data.chat.id;
    const messages = (await a.api('GET', `/api/v1/chats/${encodeURIComponent(chatId)}/messages?limit=100`)).json().messages;
    expect(messages).toHaveLength(12);
  });

  it('the same guid reported at once by both processes is one event, delivered once', async () => {
    const from = newHandle();
    const before = rx.received.length;
    const guid = `twice-${kind}`;
    await Promise.all(Array.from({ length: 6 }, (_, i) => inject(i % 2 ? b : a, { from, text: 'only once', guid })));
    await rx.waitFor(before + 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(payloads().filter((p) => p.message_guid === guid)).toHaveLength(1);
    expect((await listEvents()).filter((e) => e.payload.message_guid === guid)).toHaveLength(1);
  });

  it('a contact first seen in a group who then writes directly gets a direct conversation', async () => {
    const from = newHandle();
    const before = rx.received.length;
    await inject(a, { from, text: 'in the group', guid: `grp-${kind}`, chat: { chat_key: `chat-${kind}-${from}`, handles: [from, newHandle()] } });
    await inject(b, { from, text: 'just us', guid: `direct-${kind}` });
    await rx.waitFor(before + 2);
    const direct = payloads().find((p) => p.message_guid === `direct-${kind}`);
    const group = payloads().find((p) => p.message_guid === `grp-${kind}`);
    expect(group.data.chat.is_group).toBe(true);
    expect(direct.data.chat.is_group).toBe(false);
    expect(direct.data.chat.handles.map((h: { handle: string }) => h.handle)).toEqual([from, direct.to]);
  });

  it('a returning contact who writes to another line: the conversation follows that line', async () => {
    const from = newHandle();
    const before = rx.received.length;
    await inject(a, { from, text: 'on line one', guid: `l1-${kind}` }, 0);
    await rx.waitFor(before + 1);
    await inject(b, { from, text: 'on line two', guid: `l2-${kind}` }, 1);
    await rx.waitFor(before + 2);
    const [first, second] = [`l1-${kind}`, `l2-${kind}`].map((g) => payloads().find((p) => p.message_guid === g));
    expect(second.data.chat.id).toBe(first.data.chat.id);
    expect(second.data.chat.owner_handle.handle).not.toBe(first.data.chat.owner_handle.handle);
    expect(second.line_id).toBe(a.demo.phone_line_ids[1]);
    const chats = (await a.api('GET', '/api/v1/chats?limit=200')).json().chats as { chat: { id: string; phone_line_id: string | null } }[];
    expect(chats.find((c) => c.chat.id === first.data.chat.id)?.chat.phone_line_id).toBe(a.demo.phone_line_ids[1]);
  });
});
