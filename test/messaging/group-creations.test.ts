/**
 * A group the line created is recorded whole or not at all: a store that fails while the chat,
 * leads, participants and first message are written leaves none of them. The failure is a real
 * one, raised by the database itself (a trigger refusing the first message's row), on both stores.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { STORE_KINDS, type StoreKind } from '../support/stores.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { deviceLog, newRecipient, prepareSandbox } from '../support/messaging.js';

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

  it('writes nothing of it when the store fails in the middle', async () => {
    const members = [newRecipient(), newRecipient()];
    await refuseMessages(t, kind);
    try {
      const res = await createGroup(members, `hello ${POISON}`);
      expect(res.statusCode, res.body).toBe(500);
      expect(res.json().error.code).toBe(3001);
    } finally {
      await allowMessages(t, kind);
    }
    // The Mac has the group; Blueline has no part of it: no chat by its key, no participant, no lead.
    const created = (await Promise.all(t.demo.phone_line_ids.map(async (id) => ({ id, log: await deviceLog(t, id) }))))
      .flatMap(({ id, log }) => log.filter((e) => e.kind === 'create_group' && (e.handles as string[]).includes(members[0]!)).map((e) => ({ id, e })));
    expect(created).toHaveLength(1);
    const { store } = t.testStore;
    const tenantId = (await store.lines.get(created[0]!.id))!.tenant_id;
    expect(await store.chats.chatByKey(tenantId, created[0]!.e.chat_key as string)).toBeUndefined();
    for (const h of members) expect(await store.chats.findLead(tenantId, h)).toBeUndefined();
    const listed = (await t.api('GET', `/api/v1/chats?q=${encodeURIComponent(members[0]!)}`)).json().chats;
    expect(listed).toEqual([]);
  });
});
