/**
 * A person's chat none of whose messages went out pins no line, whichever of its messages fails
 * last and on whichever line. A send through a named line (a voice note's staging line) goes out on that line without moving the chat: when the chat's own
 * line's messages fail first and the named line's message fails last, the chat must still be
 * unpinned, or its next send goes out as a reply that is no first touch and counts nowhere.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { firstTouch, prepareSandbox } from '../support/messaging.js';
import { STORE_KINDS } from '../support/stores.js';
import { SIMULATOR_RECIPIENTS } from '../../src/drivers/simulator/reserved.js';
import { makeWav16Fast, sine } from '../audio/fixtures.js';

// Accepted and never delivered: the test says when each message fails, as a line would report it.
const TO = SIMULATOR_RECIPIENTS.undelivered;

describe.each(STORE_KINDS)('a chat whose messages all failed, on two lines (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind);
    await prepareSandbox(t);
  });
  afterAll(async () => t?.close());

  const tenantId = async () => (await t.testStore.store.tenants.getBySlug('demo'))!.id;
  const chatLine = async (chatId: string) => (await t.testStore.store.chats.getChat(await tenantId(), chatId))?.line_id;
  /** As the line reports it: Messages could not deliver the message it had accepted. */
  const failOnLine = async (messageId: string) => {
    const m = (await t.testStore.store.messages.get(await tenantId(), messageId))!;
    return t.services.events.sendFailed(m.line_id!, m.provider_guid!);
  };

  for (const last of ['the named line', "the chat's own line"] as const) {
    it(`pins no line once the last of them fails, on ${last}`, async () => {
      const first = await firstTouch(t, { phone: TO, body: `first touch, ${last} fails last` });
      expect(first.statusCode, first.body).toBe(200);
      const own: string = first.json().phone_line_id;
      const other = t.demo.phone_line_ids.find((id) => id !== own)!;
      // A voice note leaves from its staging line, here the other one.
      const staged = await t.api('POST', '/api/v1/voice-notes', { audio_base64: makeWav16Fast(8_000, 1, 8_000, sine(440, 8_000)).toString('base64'), mime_type: 'audio/wav', phone_line_id: other });
      expect(staged.statusCode, staged.body).toBe(200);
      const named = await t.api('POST', '/api/v1/send', { phone: TO, phone_line_id: other, voice_note: { voice_note_id: staged.json().voice_note_id } });
      expect(named.statusCode, named.body).toBe(200);
      expect(named.json().phone_line_id).toBe(other);
      // The named line did not move the chat.
      expect(await chatLine(first.json().chat_id)).toBe(own);

      const order = [first.json().message_id, named.json().message_id];
      if (last === "the chat's own line") order.reverse();
      expect(await failOnLine(order[0])).toBe(true);
      expect(await chatLine(first.json().chat_id)).toBe(own); // one message is still live
      expect(await failOnLine(order[1])).toBe(true);
      expect(await chatLine(first.json().chat_id)).toBeNull();
      // The next send is a first touch again.
      const again = await firstTouch(t, { phone: TO, body: `after both failed, ${last} last` });
      expect(again.statusCode, again.body).toBe(200);
      expect((await t.testStore.store.messages.get(await tenantId(), again.json().message_id))?.first_touch).toBe(true);
      // Leave the chat with nothing live for the next round.
      expect(await failOnLine(again.json().message_id)).toBe(true);
    });
  }
});
