/**
 * HubSpot retries a webhook batch and a workflow action on 5xx, timeouts and 429, never on a
 * 200. Every logical failure is a 200 (the spec's rule), but a failure of ours that says nothing
 * about the request (the database refused to record it; the same action still being processed)
 * answered 200 too: HubSpot never asked again, so the created contacts were never texted and the
 * workflow went on as failed. Those are now 503 / 429 with Retry-After, and HubSpot's retry does
 * the work once. The store failures are real ones, raised by the database (a trigger).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { STORE_KINDS, type StoreKind } from '../../support/stores.js';
import { allDeviceLogs } from '../../support/messaging.js';
import { LEASE_MS } from '../../../src/domain/messaging/idempotency.js';
import { PORTAL, claimWorkflowAction, signed, startInstalled, webhookEvent, workflowPayload, type HubSpotHarness } from './helpers.js';

/** From now on the database refuses inserts into `table` (where `column` = `value`). */
async function refuseInserts(h: HubSpotHarness, kind: StoreKind, table: string, column: string, value: string) {
  const db = h.t.testStore.store.database.db;
  if (kind === 'sqlite') {
    await sql`create trigger refuse_insert before insert on ${sql.table(table)} when new.${sql.ref(column)} = ${sql.lit(value)} begin select raise(abort, 'injected store failure'); end`.execute(db);
  } else {
    await sql`create function refuse_insert() returns trigger language plpgsql as $$ begin if new.${sql.ref(column)} = ${sql.lit(value)} then raise exception 'injected store failure'; end if; return new; end $$`.execute(db);
    await sql`create trigger refuse_insert before insert on ${sql.table(table)} for each row execute function refuse_insert()`.execute(db);
  }
  return async () => {
    await sql`drop trigger refuse_insert${sql.raw(kind === 'postgres' ? ` on ${table}` : '')}`.execute(db);
    if (kind === 'postgres') await sql`drop function refuse_insert()`.execute(db);
  };
}

const texts = async (h: HubSpotHarness, words: string) => (await allDeviceLogs(h.t)).filter((e) => JSON.stringify(e).includes(words));

describe.each(STORE_KINDS)('failures HubSpot retries (%s)', (kind) => {
  let h: HubSpotHarness;
  let contact: string;
  beforeEach(async () => {
    ({ h, contact } = await startInstalled(kind));
  });
  afterEach(async () => h.close());

  it('webhook: a batch the database could not record is 503 (HubSpot retries it); the retry records it and the contact is texted once', async () => {
    await h.t.api('PATCH', `/api/v1/integrations/hubspot/${PORTAL}`, { auto_send: { enabled: true, template: 'Welcome {{firstname}}' } });
    const allow = await refuseInserts(h, kind, 'hubspot_auto_sends', 'object_id', contact);
    const refused = await signed(h, 'POST', '/crm/hubspot/webhook', [webhookEvent(PORTAL, contact)], { version: 'v1' });
    expect(refused.statusCode).toBe(503);
    expect(refused.json()).toMatchObject({ ok: false, code: 3001, retryable: true, trace_id: expect.any(String) });
    expect(refused.body).not.toContain('injected store failure');
    await allow();

    const retry = await signed(h, 'POST', '/crm/hubspot/webhook', [webhookEvent(PORTAL, contact, { attemptNumber: 1 })], { version: 'v1' });
    expect(retry.statusCode).toBe(200);
    expect(retry.json()).toMatchObject({ ok: true, recorded: 1, duplicates: 0 });
    await h.t.services.hubspot!.autoSends.drain();
    expect(await texts(h, 'Welcome Ada')).toHaveLength(1);
  });

  it('workflow: an action the database could not take is 503 (HubSpot retries it); the retry texts the contact once', async () => {
    const allow = await refuseInserts(h, kind, 'idempotency_keys', 'route', 'crm:hubspot:workflow');
    const payload = workflowPayload(PORTAL, contact, 'cb-store', { phone: '+14155550996' });
    const refused = await signed(h, 'POST', '/crm/hubspot/workflow/send', payload);
    expect(refused.statusCode).toBe(503);
    expect(refused.json()).toMatchObject({ ok: false, code: 3001, retryable: true });
    // Not a FAIL_CONTINUE: HubSpot does not read a 503's body, and the action is not over.
    expect(refused.json().outputFields).toBeUndefined();
    await allow();

    const retry = await signed(h, 'POST', '/crm/hubspot/workflow/send', payload, { version: 'v2' });
    expect(retry.statusCode).toBe(200);
    expect(retry.json()).toMatchObject({ ok: true, outputFields: { hs_execution_state: 'SUCCESS' } });
    expect(await texts(h, 'Hello Ada')).toHaveLength(1);
  });
});

describe('failures HubSpot retries: an action still in progress (sqlite)', () => {
  let h: HubSpotHarness;
  let contact: string;
  beforeEach(async () => {
    ({ h, contact } = await startInstalled());
  });
  afterEach(async () => h.close());

  // Waits out the 10 s (real time) a retry waits for the claim in progress.
  it("HubSpot's retry of an action another process is still doing is 429 with Retry-After, not FAIL_CONTINUE; a later retry does it", async () => {
    // Another process has the callbackId and is still at it (its lease runs).
    await claimWorkflowAction(h, 'cb-busy', 'other-process');
    const payload = workflowPayload(PORTAL, contact, 'cb-busy', { phone: '+14155550995' });
    const busy = await signed(h, 'POST', '/crm/hubspot/workflow/send', payload);
    expect(busy.statusCode).toBe(429);
    expect(busy.headers['retry-after']).toBe('30');
    expect(busy.json()).toMatchObject({ ok: false, code: 1012, retry_after: 30 });
    expect(busy.json().outputFields).toBeUndefined();

    // That process died; HubSpot's next retry takes the claim over once its lease ended.
    h.t.clock.advance(LEASE_MS + 1_000);
    const done = await signed(h, 'POST', '/crm/hubspot/workflow/send', payload);
    expect(done.json()).toMatchObject({ ok: true, outputFields: { hs_execution_state: 'SUCCESS' } });
    expect(await texts(h, 'Hello Ada')).toHaveLength(1);
  }, 30_000);
});
