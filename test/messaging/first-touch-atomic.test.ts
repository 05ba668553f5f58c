/**
 * A first touch pins its chat to its line in one write with the message that pins it. When the
 * message cannot be recorded (here the database refuses it, through a trigger the test installs,
 * as a full disk or a lost connection would), nothing of the first touch stays behind: the chat
 * is not pinned, and the project's daily first-touch slot is given back. Otherwise the person's
 * next message would go out as a reply, no first touch, counted nowhere, and the day would have a
 * slot fewer. With and without an Idempotency-Key (the keyed path records under its claim).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { moveToNextNoonUtc, newRecipient, prepareSandbox } from '../support/messaging.js';
import { STORE_KINDS, type TestStore } from '../support/stores.js';
import { openSqlite } from '../../src/store/sqlite-handles.js';

const MARK = 'refused by the store';

/** Makes the database refuse any message whose parts carry MARK. */
async function refuseMarkedMessages(store: TestStore): Promise<void> {
  if (store.kind === 'sqlite') {
    const outside = openSqlite(store.location);
    try {
      outside.db.exec(`create trigger refuse_marked before insert on messages when new.parts like '%${MARK}%' begin select raise(abort, 'refused by the test trigger'); end`);
    } finally {
      outside.db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: store.location });
  await client.connect();
  try {
    await client.query(`create function refuse_marked() returns trigger language plpgsql as $$
      begin
        if new.parts::text like '%${MARK}%' then raise exception 'refused by the test trigger'; end if;
        return new;
      end $$`);
    await client.query('create trigger refuse_marked before insert on messages for each row execute function refuse_marked()');
  } finally {
    await client.end();
  }
}

describe.each(STORE_KINDS)('a first touch whose message cannot be recorded (%s)', (kind) => {
  let t: TestApp;
  let tenantId: string;
  beforeAll(async () => {
    t = await startTestApp(kind);
    await prepareSandbox(t);
    tenantId = (await t.testStore.store.tenants.getBySlug('demo'))!.id;
    // One first touch a day: a slot the failure kept would refuse the next one (4002).
    expect((await t.admin('PATCH', '/admin/v1/tenants/demo', { daily_first_touch_cap: 1 })).statusCode).toBe(200);
    await refuseMarkedMessages(t.testStore);
  });
  afterAll(async () => t?.close());

  for (const keyed of [false, true]) {
    it(`leaves the chat unpinned and the day's slot free${keyed ? ', under an Idempotency-Key' : ''}`, async () => {
      moveToNextNoonUtc(t.clock);
      const phone = newRecipient();
      const headers = (key: string): Record<string, string> => (keyed ? { 'idempotency-key': key } : {});
      const refused = await t.api('POST', '/api/v1/send', { phone, body: `first touch, ${MARK}` }, { headers: headers(`refused-${phone}`) });
      expect(refused.statusCode, refused.body).toBe(500);
      expect(refused.body).not.toContain('trigger');

      // The lead and its chat were written before the send (they stay), but no line is pinned.
      const found = await t.testStore.store.chats.findLeadWithChat(tenantId, phone);
      expect(found?.chat.line_id).toBeNull();

      // The next send to that person is a first touch, on the same day, within the cap of 1.
      const next = await t.api('POST', '/api/v1/send', { phone, body: 'first touch, recorded' }, { headers: headers(`next-${phone}`) });
      expect(next.statusCode, next.body).toBe(200);
      const message = await t.testStore.store.messages.get(tenantId, next.json().message_id);
      expect(message?.first_touch).toBe(true);
      expect((await t.testStore.store.chats.findLeadWithChat(tenantId, phone))?.chat.line_id).toBe(next.json().phone_line_id);
    });
  }
});
