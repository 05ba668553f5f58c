/**
 * Replies from a phone are pushed to the HubSpot contact it is linked to. A workflow action links
 * the phone it texts to its contact only when that phone is the contact's own: a phone the
 * action's input names (a rep told of every enrolled contact) would otherwise take each enrolled
 * contact in turn, and the rep's replies would land on whichever came last. Sent at once or held
 * for the sending window alike.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STORE_KINDS } from '../../support/stores.js';
import { moveToNextNoonUtc } from '../../support/messaging.js';
import { PORTAL, closeWindowForTwoHours, signed, startPortal, workflowPayload, type HubSpotHarness } from './helpers.js';

const HOUR = 3_600_000;
const REP = '+14155550199';

describe.each(STORE_KINDS)('which phone a workflow action links to its contact (%s)', (kind) => {
  let h: HubSpotHarness;
  beforeEach(async () => {
    h = await startPortal(kind);
    moveToNextNoonUtc(h.t.clock);
  });
  afterEach(async () => h.close());

  const act = (callbackId: string, objectId: string, mobilephone: string, phoneInput?: string) =>
    signed(h, 'POST', '/crm/hubspot/workflow/send', workflowPayload(PORTAL, objectId, callbackId, { properties: { firstname: 'Ada', mobilephone }, ...(phoneInput && { phone: phoneInput }), message: 'New lead {{firstname}}' }), { version: 'v2' });
  const linked = async (handle: string) => {
    const tenant = (await h.t.testStore.store.tenants.getBySlug('demo'))!;
    return (await h.t.testStore.store.hubspot.linkedContacts(tenant.id, handle)).map((l) => l.contact_id);
  };

  it("sent at once: the contact's own number is linked to it; a rep's number from the phone input is linked to no contact", async () => {
    expect((await act('cb-own', '601', '+14155550161')).json().outputFields.hs_execution_state).toBe('SUCCESS');
    expect(await linked('+14155550161')).toEqual(['601']);
    for (const [callbackId, contact] of [['cb-rep-1', '602'], ['cb-rep-2', '603']] as const) {
      h.t.clock.advance(11 * 60_000); // past the lines' first-touch gap
      expect((await act(callbackId, contact, `+1415555016${contact.at(-1)}`, REP)).json().outputFields.hs_execution_state).toBe('SUCCESS');
    }
    expect(await linked(REP)).toEqual([]);
  });

  it('held for the sending window, then sent: linked the same way', async () => {
    await closeWindowForTwoHours(h);
    expect((await act('cb-held-own', '611', '+14155550171')).json()).toMatchObject({ held: true });
    expect((await act('cb-held-rep', '612', '+14155550172', REP)).json()).toMatchObject({ held: true });
    h.t.clock.advance(2 * HOUR + 60_000);
    await h.t.services.hubspot!.heldActions.drain();
    h.t.clock.advance(11 * 60_000);
    await h.t.services.hubspot!.heldActions.drain();
    const held = (await h.t.api('GET', `/api/v1/integrations/hubspot/${PORTAL}/held-actions?state=completed`)).json().held_actions;
    expect(held.map((a: { callback_id: string; outcome: { state: string } }) => [a.callback_id, a.outcome.state]).sort()).toEqual([['cb-held-own', 'SUCCESS'], ['cb-held-rep', 'SUCCESS']]);
    expect(await linked('+14155550171')).toEqual(['611']);
    expect(await linked(REP)).toEqual([]);
  });
});
