/**
 * A group the line created is recorded whole or not at all: a store that fails while the chat,
 * leads, participants and first message are written leaves none of them, and the reconciliation
 * sweep records it later from the line (once: a retry under the same idempotency key waits for
 * that with 1012, then answers that group). The failure is a real one, raised by the database
 * itself (a trigger refusing the first message's row), on both stores.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { STORE_KINDS, type StoreKind } from '../support/stores.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { deviceLog, newRecipient, prepareSandbox } from '../support/messaging.js';
import { SIMULATOR_RECIPIENTS } from '../../src/drivers/simulator/reserved.js';

const POISON = 'poisoned-store';

/** From now on the database refuses any message whose parts hold POISON. */
async function refuseMessages(t: TestApp, kind: StoreKind) {
  const db = t.testStore.store.database.db;
  if (kind === 'sqlite') {
    await sql`create trigger refuse_poisoned before insert on messages when new.parts like ${sql.lit(`%${POISON}%`)} begin select raise(abort, 'injected store failure'); end`.execute(db);
  } else {
    await sql`create function refuse_poisoned() returns trigger language plpgsql as $$ begin if new.parts like ${sql.lit(`%${POISON}%`)} then raise exception 'injected store failure'; end if; return new; end $$`.execute(db);
    await sql`create trigger refuse_poisoned before insert on messages for each row execute function refuse_poisoned()`.execute(db);
  }
}

async function allowMessages(t: TestApp, kind: StoreKind) {
  const db = t.testStore.store.database.db;
  await sql`drop trigger refuse_poisoned${sql.raw(kind === 'postgres' ? ' on messages' : '')}`.execute(db);
  if (kind === 'postgres') await sql`drop function refuse_poisoned()`.execute(db);
}

describe.each(STORE_KINDS)('recording a created group (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind);
    await prepareSandbox(t);
  });
  afterAll(async () => t.close());

  const createGroup = (members: string[], text: string, extra: object = {}) => {
    t.clock.advance(11 * 60_000);
    return t.api('POST', '/api/v1/chats', { to: members, message: { parts: [{ type: 'text', value: text }] }, ...extra });
  };

  it('writes nothing of it when the store fails in the middle; the next sweep records it once, and the same key answers 1012 until then', async () => {
    const members = [newRecipient(), newRecipient()];
    const body = { to: members, message: { parts: [{ type: 'text', value: `hello ${POISON}` }] }, idempotency_key: `group-store-${kind}` };
    await refuseMessages(t, kind);
    try {
      t.clock.advance(11 * 60_000);
      const res = await t.api('POST', '/api/v1/chats', body);
      expect(res.statusCode, res.body).toBe(500);
      expect(res.json().error.code).toBe(3001);
    } finally {
      await allowMessages(t, kind);
    }
    // The Mac has the group; Blueline has no part of it: no chat by its key, no participant, no lead.
    const created = await createdOnDevice(members[0]!);
    expect(created).toHaveLength(1);
    const { store } = t.testStore;
    const { id: lineId, e: entry } = created[0]!;
    const tenantId = (await store.lines.get(lineId))!.tenant_id;
    expect(await store.chats.chatByKey(tenantId, entry.chat_key as string)).toBeUndefined();
    for (const h of members) expect(await store.chats.findLead(tenantId, h)).toBeUndefined();
    expect((await t.api('GET', `/api/v1/chats?q=${encodeURIComponent(members[0]!)}`)).json().chats).toEqual([]);

    // A retry under the same key creates no second group while the first is unsettled.
    const early = await t.api('POST', '/api/v1/chats', body);
    expect(early.statusCode, early.body).toBe(409);
    expect(early.json().error.code).toBe(1012);

    const swept = await t.services.sendReconciler.sweep();
    expect(swept.groups.recorded).toBe(1);
    const again = await t.api('POST', '/api/v1/chats', body);
    expect(again.statusCode, again.body).toBe(201);
    const { chat, message } = again.json();
    expect(chat).toMatchObject({ is_group: true, phone_line_id: lineId });
    expect(chat.handles.sort()).toEqual([...members].sort());
    expect(message).toMatchObject({ chat_id: chat.id, status: 'sent', parts: [{ type: 'text', value: `hello ${POISON}` }] });
    expect((await store.chats.chatByKey(tenantId, entry.chat_key as string))?.id).toBe(chat.id);
    const history = (await t.api('GET', `/api/v1/chats/${chat.id}/messages`)).json().messages;
    expect(history.map((m: { id: string }) => m.id)).toEqual([message.id]);
    // Still one group on the device, and the next sweep has nothing left to do.
    expect(await createdOnDevice(members[0]!)).toHaveLength(1);
    expect((await t.services.sendReconciler.sweep()).groups).toEqual({ recorded: 0, dropped: 0, pending: 0 });
    expect((await t.api('POST', '/api/v1/chats', body)).json().chat.id).toBe(chat.id);
  });

  it('gives the line back when the line refuses the group: the next creation on it needs no 10-minute wait', async () => {
    const lineId = t.demo.phone_line_ids[0]!;
    const refused = await createGroup([SIMULATOR_RECIPIENTS.unreachable, newRecipient()], 'hi', { phone_line_id: lineId });
    expect(refused.statusCode, refused.body).toBe(502);
    expect(refused.json().error.code).toBe(4001);
    // No clock move: the refused creation took no first-touch slot.
    const next = await t.api('POST', '/api/v1/chats', { to: [newRecipient(), newRecipient()], message: { parts: [{ type: 'text', value: 'hi' }] }, phone_line_id: lineId });
    expect(next.statusCode, next.body).toBe(201);
    expect((await t.services.sendReconciler.sweep()).groups).toEqual({ recorded: 0, dropped: 0, pending: 0 });
  });

  /** The device log entries that created a group with `member`, with their line. */
  async function createdOnDevice(member: string) {
    const logs = await Promise.all(t.demo.phone_line_ids.map(async (id) => ({ id, log: await deviceLog(t, id) })));
    return logs.flatMap(({ id, log }) => log.filter((e) => e.kind === 'create_group' && (e.handles as string[]).includes(member)).map((e) => ({ id, e })));
  }
});
