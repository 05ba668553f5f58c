/**
 * Migration 032 (fewer index writes per send) keeps what an upgrade must keep: the simulator's
 * device log, rebuilt under its new key, reads back whole and in the device's order, and a
 * message sent before or after it is still found by its guid (receipts land, the device log
 * names the message). Down and up again, on both databases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { deviceLog, eventually, firstTouch, newRecipient, prepareSandbox } from '../support/messaging.js';
import { STORE_KINDS } from '../support/stores.js';
import * as m032 from '../../src/store/migrations/032_send_path_btrees.js';

describe.each(STORE_KINDS)('migration 032, send path indexes (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind);
    await prepareSandbox(t);
  });
  afterAll(async () => t?.close());

  const read = (id: string) =>
    eventually(
      async () => (await t.api('GET', `/api/v1/messages/${id}`)).json().message as { status: string; read_at: string | null },
      (m) => m.status === 'read',
    );

  it('keeps the device log and the lookups by guid through down and up', async () => {
    const phone = newRecipient();
    const first = (await firstTouch(t, { phone, body: 'before the upgrade' })).json();
    const reply = (await t.api('POST', '/api/v1/send', { phone, body: 'a reply before it' })).json();
    expect((await read(first.message_id)).status).toBe('read');
    expect((await read(reply.message_id)).status).toBe('read');
    const line = first.phone_line_id as string;
    const before = await deviceLog(t, line);
    expect(before.map((e) => e.ref)).toEqual([reply.message_id, first.message_id]);

    const db = t.testStore.store.database.db;
    await m032.down(db as never);
    expect(await deviceLog(t, line)).toEqual(before);
    await m032.up(db as never);
    expect(await deviceLog(t, line)).toEqual(before);

    const after = (await t.api('POST', '/api/v1/send', { phone, body: 'after the upgrade' })).json();
    const m = await read(after.message_id);
    expect(m.status).toBe('read');
    expect(m.read_at).not.toBeNull();
    const log = await deviceLog(t, line);
    expect(log.map((e) => e.ref)).toEqual([after.message_id, reply.message_id, first.message_id]);
    expect(log[0]).toMatchObject({ kind: 'text', text: 'after the upgrade', to: phone });
  });
});
