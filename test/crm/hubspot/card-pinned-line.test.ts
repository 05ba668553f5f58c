/**
 * The contact card says whether a send now would go out, and must say what the send pipeline
 * would do. A contact's conversation whose line went away (turned off, or moved to another
 * project) is moved by the pipeline to another of the project's lines, as a reply: no
 * first-touch rules. The card said "no line" there, so a rep never tried a send that works.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { PORTAL, cardUrl, signed, startInstalled, type HubSpotHarness } from './helpers.js';

let h: HubSpotHarness;
let contact: string;
beforeEach(async () => {
  ({ h, contact } = await startInstalled());
});
afterEach(async () => h.close());

// Card sends are one per contact and second of HubSpot's signed timestamp: each send here names its own.
const send = (text: string, secondsAgo: number) =>
  signed(h, 'POST', '/crm/hubspot/card/send', { portalId: String(PORTAL), objectId: contact, text }, { timestampMs: Date.now() - secondsAgo * 1000 });

const setActive = async (lineId: string, isActive: boolean) =>
  expect((await h.t.admin('PATCH', `/admin/v1/lines/${lineId}`, { is_active: isActive })).statusCode).toBe(200);

it("pinned line missing: the card says a send goes out (on another line, no first touch), and the send does", async () => {
  const first = await send('Hello', 5);
  expect(first.json()).toMatchObject({ ok: true, lead_created: true });
  const pinnedLine: string = first.json().phone_line_id;
  const otherLine = h.t.demo.phone_line_ids.find((id) => id !== pinnedLine)!;
  await setActive(pinnedLine, false);
  // A first touch now would be refused (the project's cap is used up): the card must not apply it.
  await h.t.admin('PATCH', '/admin/v1/tenants/demo', { daily_first_touch_cap: 1 });

  const card = await signed(h, 'GET', cardUrl(PORTAL, contact));
  expect(card.json()).toMatchObject({ ok: true, chat_id: first.json().chat_id, lines: [{ phone_line_id: otherLine }] });
  expect(card.json().send).toEqual({ would_be_first_touch: false, allowed_now: true });

  const moved = await send('Still there?', 0);
  expect(moved.json()).toMatchObject({ ok: true, lead_created: false, phone_line_id: otherLine, chat_id: first.json().chat_id });
});

it('pinned line missing and no other line can send: the card says no line (3002), as the send answers', async () => {
  const first = await send('Hello', 5);
  expect(first.json()).toMatchObject({ ok: true });
  for (const id of h.t.demo.phone_line_ids) await setActive(id, false);

  const card = await signed(h, 'GET', cardUrl(PORTAL, contact));
  expect(card.json()).toMatchObject({ ok: true, lines: [] });
  expect(card.json().send).toMatchObject({ would_be_first_touch: false, allowed_now: false, error: 'no line', code: 3002 });

  const refused = await send('Still there?', 0);
  expect(refused.json()).toMatchObject({ ok: false, code: 3002 });
});
