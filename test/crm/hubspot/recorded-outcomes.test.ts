/**
 * CRM sends are recorded under HubSpot's key (card: contact and second, 24 h; workflow: callbackId,
 * for good) and a retry is answered from the record. Records written before outcomes were recorded in
 * domain terms held the answer's snake_case fields: a retry that finds one after an upgrade gets the
 * same answer as the first time, not a broken one.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { PORTAL, signed, startInstalled, workflowPayload, type HubSpotHarness } from './helpers.js';

let h: HubSpotHarness;
let contact: string;
beforeEach(async () => {
  ({ h, contact } = await startInstalled());
});
afterEach(async () => h.close());

/** Rewrites a done record as the previous version wrote it: the CRM answer's fields, no `ok`/`trace_id`. */
async function asPreviousVersionRecorded(route: string, key: string, answer: Record<string, unknown>) {
  const tenant = (await h.t.testStore.store.tenants.getBySlug('demo'))!;
  const legacy = { message_id: answer.message_id, lead_id: answer.lead_id, chat_id: answer.chat_id, lead_created: answer.lead_created, phone_line_id: answer.phone_line_id, phone: answer.phone };
  await h.t.testStore.store.idempotency.complete({ tenant_id: tenant.id, route, key }, JSON.stringify({ ok: true, result: legacy }));
}

const without = (body: Record<string, unknown>, ...keys: string[]) => Object.fromEntries(Object.entries(body).filter(([k]) => !keys.includes(k)));

it('a card send retried over a record of the previous version answers the first result, duplicate:true', async () => {
  const ts = Math.floor(Date.now() / 1000) * 1000 + 100;
  const body = { portalId: String(PORTAL), objectId: contact, text: 'Hello' };
  const first = (await signed(h, 'POST', '/crm/hubspot/card/send', body, { timestampMs: ts })).json();
  expect(first.ok).toBe(true);
  await asPreviousVersionRecorded('crm:hubspot:card_send', `${PORTAL}:${contact}:${Math.floor(ts / 1000)}`, first);
  const again = (await signed(h, 'POST', '/crm/hubspot/card/send', body, { timestampMs: ts + 500 })).json();
  expect(without(again, 'trace_id')).toEqual({ ...without(first, 'trace_id'), duplicate: true });
});

it('a workflow action retried over a record of the previous version answers the first result, duplicate:true', async () => {
  const payload = workflowPayload(PORTAL, contact, 'cb-legacy', { phone: '+14155550999' });
  const first = (await signed(h, 'POST', '/crm/hubspot/workflow/send', payload)).json();
  expect(first.ok).toBe(true);
  await asPreviousVersionRecorded('crm:hubspot:workflow', `${PORTAL}:cb-legacy`, first);
  const again = (await signed(h, 'POST', '/crm/hubspot/workflow/send', payload)).json();
  expect(without(again, 'trace_id')).toEqual({ ...without(first, 'trace_id'), duplicate: true });
});
