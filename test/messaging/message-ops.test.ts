import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { deviceLog, eventually, firstTouch, newRecipient, prepareSandbox, uploadedFile } from '../support/messaging.js';
import { SIMULATOR_RECIPIENTS } from '../../src/drivers/simulator/reserved.js';

describe('edits, reactions and isolation', () => {
  let t: TestApp;
  let sent: { message_id: string; chat_id: string; phone_line_id: string; lead_id: string };
  let phone: string;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    await prepareSandbox(t);
    phone = newRecipient();
    sent = (await firstTouch(t, { phone, body: 'Meet at 5' })).json();
  });
  afterAll(async () => t.close());

  const edit = (id: string, body: unknown) => t.api('POST', `/api/v1/messages/${id}/edit`, body);

  it('edits an outbound message within 15 minutes, with the exact result fields', async () => {
    const res = await edit(sent.message_id, { new_text: 'Meet at 6' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({ status: 'edited', message_id: sent.message_id, new_text: 'Meet at 6', date_edited: expect.any(String), edit_history: null });
    // The device log names the edited message (its id and text), not only its guid.
    expect((await deviceLog(t, sent.phone_line_id))[0]).toMatchObject({ kind: 'edit', part_index: 0, text: 'Meet at 6', message_id: sent.message_id, message_text: 'Meet at 6' });
    const m = (await t.api('GET', `/api/v1/messages/${sent.message_id}`)).json().message;
    expect(m.parts).toEqual([{ type: 'text', value: 'Meet at 6' }]);
    expect(m.edited_at).toBe(body.date_edited);
    // The spec's transition sent → edited; later receipts set their times and keep it.
    expect(m.status).toBe('edited');
    const fresh = (await t.api('POST', '/api/v1/send', { phone, body: 'edit me before it is read' })).json();
    expect((await edit(fresh.message_id, { new_text: 'edited early' })).statusCode).toBe(200);
    const later = await eventually(
      async () => (await t.api('GET', `/api/v1/messages/${fresh.message_id}`)).json().message,
      (x) => x.read_at !== null,
    );
    expect(later).toMatchObject({ status: 'edited', delivered_at: expect.any(String), read_at: expect.any(String) });
    // Not idempotent: a second edit is a second edit.
    expect((await edit(sent.message_id, { new_text: 'Meet at 7' })).statusCode).toBe(200);
  });

  it('answers the spec codes for bad edits', async () => {
    expect((await edit(sent.message_id, { new_text: '' })).json().error.code).toBe(1002);
    expect((await edit(sent.message_id, {})).json().error.code).toBe(1002);
    expect((await edit(sent.message_id, { new_text: 'x', edited_part_index: 3 })).json().error).toMatchObject({ code: 1002, message: 'edited_part_index 3 is not a text part of this message (its text is at 0)' });
    // A send with a file answers the file's message_id: the refusal says where its text is.
    const withFile = await t.api('POST', '/api/v1/send', { phone, body: 'Brochure attached', attachments: [await uploadedFile(t, 'brochure.pdf', 'application/pdf')] });
    expect(withFile.statusCode, withFile.body).toBe(200);
    const { message_id: fileBubble, message_ids: bubbles } = withFile.json() as { message_id: string; message_ids: string[] };
    const onFile = await edit(fileBubble, { new_text: 'Brochure (updated) attached' });
    expect(onFile.statusCode).toBe(400);
    expect(onFile.json().error.code).toBe(1002);
    expect(onFile.json().error.message).toMatch(/this one is a file\. Edit the text's message: the send's message_ids/);
    expect((await edit(bubbles[0]!, { new_text: 'Brochure (updated) attached' })).statusCode).toBe(200);
    const badJson = await t.request({
      method: 'POST', url: `/api/v1/messages/${sent.message_id}/edit`, payload: '{"new_text":',
      headers: { authorization: `Bearer ${t.demo.signing_secret}`, 'content-type': 'application/json' },
    });
    expect(badJson.json().error.code).toBe(1004);
    expect((await edit('msg_nope', { new_text: 'x' })).json().error.code).toBe(2003);
    expect((await edit(sent.message_id, { new_text: 'x'.repeat(10_001) })).json().error.code).toBe(1009);
    expect((await edit(sent.message_id, { new_text: '😀'.repeat(10_001) })).json().error).toMatchObject({ code: 1009, message: 'new_text is 10001 characters; the maximum is 10000' });
    const other = (await t.api('POST', '/api/v1/send', { phone, body: 'to be filled with emoji' })).json();
    expect((await edit(other.message_id, { new_text: '😀'.repeat(10_000) })).statusCode).toBe(200);
  });

  it('refuses edits after 15 minutes (4001) and on lines without edits (4099/501)', async () => {
    const fresh = (await t.api('POST', '/api/v1/send', { phone, body: 'old news' })).json();
    t.clock.advance(15 * 60_000 + 1_000);
    const late = await edit(fresh.message_id, { new_text: 'too late' });
    expect(late.statusCode).toBe(502);
    expect(late.json().error.code).toBe(4001);
    await t.admin('PATCH', `/admin/v1/lines/${sent.phone_line_id}`, { driver_config: { receipt_delay_ms: 5, edits: false } });
    const recent = (await t.api('POST', '/api/v1/send', { phone, body: 'no edits here' })).json();
    const off = await edit(recent.message_id, { new_text: 'x' });
    expect(off.statusCode).toBe(501);
    expect(off.json().error.code).toBe(4099);
    await t.admin('PATCH', `/admin/v1/lines/${sent.phone_line_id}`, { driver_config: { receipt_delay_ms: 5 } });
  });

  it('reacts to outbound and inbound messages, removes reactions, refuses unknown ones', async () => {
    const out = await t.api('POST', `/api/v1/messages/${sent.message_id}/react`, { reaction: 'love' });
    expect(out.statusCode).toBe(200);
    expect(out.json()).toMatchObject({ status: 'reacted', message_id: sent.message_id, reaction: 'love' });
    await t.admin('POST', `/admin/v1/lines/${sent.phone_line_id}/simulate/inbound`, { from: phone, text: 'see you', guid: 'in-guid-1' });
    const inbound = (await t.api('GET', `/api/v1/chats/${sent.chat_id}/messages`)).json().messages[0];
    expect(inbound).toMatchObject({ direction: 'inbound', sender_handle: phone, parts: [{ type: 'text', value: 'see you' }] });
    const r = await t.api('POST', `/api/v1/messages/${inbound.id}/react`, { reaction: 'laugh' });
    expect(r.json()).toMatchObject({ status: 'reacted', reaction: 'laugh' });
    const removed = await t.api('POST', `/api/v1/messages/${inbound.id}/react`, { reaction: 'laugh', remove: true });
    expect(removed.json().status).toBe('removed');
    const log = await deviceLog(t, sent.phone_line_id);
    expect(log.filter((e) => e.kind === 'reaction').map((e) => [e.guid === 'in-guid-1', e.tapback, e.remove])).toEqual([
      [true, 'laugh', true],
      [true, 'laugh', false],
      [false, 'love', false],
    ]);
    // Each tapback names its message, the inbound one too (whose guid is nowhere else in the log).
    expect(log.filter((e) => e.kind === 'reaction').map((e) => [e.message_id, e.message_text, e.message_from])).toEqual([
      [inbound.id, 'see you', phone],
      [inbound.id, 'see you', phone],
      [sent.message_id, 'Meet at 7', undefined],
    ]);
    expect((await t.api('POST', `/api/v1/messages/${sent.message_id}/react`, { reaction: 'wow' })).json().error.code).toBe(1002);
    // Editing an inbound message is a kind mismatch.
    expect((await edit(inbound.id, { new_text: 'x' })).json().error.code).toBe(1011);
  });

  it("gives simulated sends UUIDv7 guids that carry the line's clock, so they sort by time", async () => {
    const guids: string[] = [];
    for (const step of [0, 5_000, 3_600_000]) {
      t.clock.advance(step);
      const before = t.clock.now();
      const res = await t.api('POST', '/api/v1/send', { phone, body: `guid at +${step}` });
      expect(res.statusCode).toBe(200);
      const entry = (await deviceLog(t, sent.phone_line_id)).find((e) => e.ref === res.json().message_id)!;
      const guid = String(entry.guid);
      expect(guid).toMatch(/^sim-[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      // The test clock runs with the wall clock: the guid's time is the send's, taken before the device logged it.
      const guidTime = parseInt(guid.slice(4, 17).replace('-', ''), 16);
      expect(guidTime).toBeGreaterThanOrEqual(before);
      expect(guidTime).toBeLessThanOrEqual(Date.parse(String(entry.at)));
      guids.push(guid);
    }
    expect([...guids].sort()).toEqual(guids);
  });

  it('never lets another tenant see or act on these messages and chats', async () => {
    const other = (await t.admin('POST', '/admin/v1/accounts', { name: 'Intruder' })).json();
    await t.admin('POST', '/admin/v1/tenants', { account_id: other.account.id, slug: 'intruder' });
    const as = (method: string, url: string, body?: unknown) => t.api(method, url, body, { secret: other.signing_secret });
    expect((await as('GET', `/api/v1/messages/${sent.message_id}`)).json().error.code).toBe(2003);
    expect((await as('POST', `/api/v1/messages/${sent.message_id}/edit`, { new_text: 'x' })).json().error.code).toBe(2003);
    expect((await as('POST', `/api/v1/messages/${sent.message_id}/react`, { reaction: 'like' })).json().error.code).toBe(2003);
    expect((await as('GET', `/api/v1/chats/${sent.chat_id}/messages`)).json().error.code).toBe(2002);
    expect((await as('POST', `/api/v1/chats/${sent.chat_id}/messages`, { message: { parts: [{ type: 'text', value: 'x' }] } })).json().error.code).toBe(2002);
    expect((await as('POST', `/api/v1/chats/${sent.chat_id}/participants`, { address: '+14155550001' })).json().error.code).toBe(2002);
    const send = await as('POST', '/api/v1/send', { phone: '+14155550123', body: 'x', phone_line_id: sent.phone_line_id });
    expect(send.json().code).toBe(2006);

    // A line moved to another tenant no longer acts on the old tenant's messages.
    const moved = (await t.api('POST', '/api/v1/send', { phone, body: 'on a line about to move' })).json();
    expect((await t.admin('PATCH', `/admin/v1/lines/${moved.phone_line_id}`, { tenant: 'intruder' })).statusCode).toBe(200);
    try {
      const logBefore = (await deviceLog(t, moved.phone_line_id)).length;
      for (const res of [
        await edit(moved.message_id, { new_text: 'x' }),
        await t.api('POST', `/api/v1/messages/${moved.message_id}/react`, { reaction: 'like' }),
      ]) {
        expect(res.statusCode).toBe(422);
        expect(res.json().error.code).toBe(4099);
      }
      expect((await deviceLog(t, moved.phone_line_id)).length).toBe(logBefore);
    } finally {
      await t.admin('PATCH', `/admin/v1/lines/${moved.phone_line_id}`, { tenant: 'demo' });
    }
  });

  it('answers 409 / 1012 to an edit or a tapback on a message still `sending` (look it up first); 4001 once it failed', async () => {
    const act = (id: string) => [edit(id, { new_text: 'changed my mind' }), t.api('POST', `/api/v1/messages/${id}/react`, { reaction: 'like' })];
    // The line's answer never comes: `sending` until reconciliation reads the device log.
    const unsettled = await firstTouch(t, { phone: SIMULATOR_RECIPIENTS.stallsAfterDevice, body: 'did it go out?' });
    expect(unsettled.statusCode, unsettled.body).toBe(503);
    const id = unsettled.json().message_id as string;
    const logBefore = (await deviceLog(t, unsettled.json().phone_line_id)).length;
    for (const res of await Promise.all(act(id))) {
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json().error).toMatchObject({ status: 409, code: 1012, retryable: false });
      expect(res.json().error.message).toContain(`message ${id} is still being sent`);
      expect(res.json().error.message).toContain(`GET /api/v1/messages/${id}`);
    }
    expect((await deviceLog(t, unsettled.json().phone_line_id)).length).toBe(logBefore);
    await t.services.sendReconciler.sweep();
    for (const res of await Promise.all(act(id))) expect(res.statusCode, res.body).toBe(200);

    // One that never left is failed once its window ends: that stays 4001.
    const lost = await firstTouch(t, { phone: SIMULATOR_RECIPIENTS.stallsBeforeDevice, body: 'this one never left' });
    expect(lost.statusCode, lost.body).toBe(503);
    t.clock.advance(2_000);
    await t.services.sendReconciler.sweep();
    for (const res of await Promise.all(act(lost.json().message_id))) {
      expect(res.statusCode, res.body).toBe(502);
      expect(res.json().error).toMatchObject({ code: 4001, retryable: true, message: expect.stringContaining('was not delivered') });
    }
  });
});
