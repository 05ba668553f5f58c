/**
 * The reply push runs by itself in a process that runs its workers (the shared claim loop,
 * src/jobs/claim-loop.ts): a reply from a linked contact reaches HubSpot once its run is due by
 * the clock, with no one calling runDue, and closing the app ends the loop.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { moveToNextNoonUtc, prepareSandbox } from '../../support/messaging.js';
import { PORTAL, install, signed, startHarness, type HubSpotHarness } from './helpers.js';

let h: HubSpotHarness | undefined;
beforeEach(async () => {
  // The workers on (the other HubSpot tests drive the job by hand); the poll as short as allowed.
  h = await startHarness('sqlite', { BLUELINE_DELIVERY_WORKER: '1', BLUELINE_WORKER_POLL_MS: '10' });
});
afterEach(async () => h?.close());

async function until(cond: () => boolean, ms = 5_000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

it('pushes a reply in the background once its run is due, and stops with the app', async () => {
  const t = h!.t;
  moveToNextNoonUtc(t.clock);
  await prepareSandbox(t);
  expect((await install(h!, PORTAL)).statusCode).toBe(200);
  const contact = h!.hs.addContact(PORTAL, { firstname: 'Ada', mobilephone: '+14155550123' });
  const line = t.demo.phone_line_ids[0]!;
  expect((await signed(h!, 'POST', '/crm/hubspot/card/send', { portalId: String(PORTAL), objectId: contact, text: 'Hello', phone_line_id: line })).json().ok).toBe(true);
  expect((await t.admin('POST', `/admin/v1/lines/${line}/simulate/inbound`, { from: '+14155550123', text: 'Yes please' })).statusCode).toBe(202);
  const bodies = () => [...h!.hs.portal(PORTAL)!.communications.values()].map((c) => c.hs_communication_body);
  t.clock.advance(120_000);
  await until(() => bodies().some((b) => b.includes('Yes please')));
  expect(bodies()).toHaveLength(1);

  const closing = Date.now();
  await h!.close();
  h = undefined;
  expect(Date.now() - closing).toBeLessThan(2_000);
});
