/**
 * A process that died while doing a workflow action leaves its claim on the callbackId in
 * progress, with a lease it no longer renews. HubSpot retries the action: once the lease has
 * ended, the retry takes the claim over and texts the contact once (before, every retry answered
 * 1012 "still being processed" for the record's 7 days, and the contact was never texted).
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { allDeviceLogs } from '../../support/messaging.js';
import { LEASE_MS } from '../../../src/domain/messaging/idempotency.js';
import { PORTAL, claimWorkflowAction, signed, startInstalled, workflowPayload, type HubSpotHarness } from './helpers.js';

let h: HubSpotHarness;
let contact: string;
beforeEach(async () => {
  ({ h, contact } = await startInstalled());
});
afterEach(async () => h.close());

it("a workflow action whose process died mid-work is done by HubSpot's retry once the claim's lease ends, once", async () => {
  // What the dead process left: the claim, its owner, a lease it will never renew.
  await claimWorkflowAction(h, 'cb-crash', 'dead-process');

  h.t.clock.advance(LEASE_MS + 1_000);
  const payload = workflowPayload(PORTAL, contact, 'cb-crash', { phone: '+14155550997' });
  const res = await signed(h, 'POST', '/crm/hubspot/workflow/send', payload);
  expect(res.json()).toMatchObject({ ok: true, outputFields: { hs_execution_state: 'SUCCESS', message_id: expect.stringMatching(/^msg_/) } });
  expect(res.json().duplicate).toBeFalsy();
  const again = await signed(h, 'POST', '/crm/hubspot/workflow/send', payload);
  expect(again.json()).toMatchObject({ ok: true, duplicate: true, outputFields: { message_id: res.json().outputFields.message_id } });
  const sent = (await allDeviceLogs(h.t)).filter((e) => JSON.stringify(e).includes('Hello Ada'));
  expect(sent).toHaveLength(1);
});
