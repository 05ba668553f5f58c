/**
 * A send whose line got the text but whose answer never came (the simulator's +15005550007 answers
 * as a line that timed out: 503 / 3002, its message `sending`; a process that died mid-send leaves
 * the same) until reconciliation asks the line. Meanwhile the send pipeline answers a retry under
 * the same key "still in progress" (1012). Neither is an outcome, on any of the three HubSpot send
 * paths: the workflow action answers 429 with Retry-After (HubSpot retries) and keeps no record on
 * its callbackId; a held action and a contact-creation auto-send try again later. Once
 * reconciliation settled the message, the retry is answered from it: `sent`, the first attempt's
 * message id, and the text went out once. (Before, 1012 was recorded as the final outcome:
 * replayed for good on the callbackId, completed FAIL_CONTINUE "in progress" at HubSpot, or the
 * auto-send `failed` with no message; and the line's 3002 was answered FAIL_CONTINUE, completed
 * FAIL_CONTINUE, or `failed` the auto-send, although the text had gone out.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SIMULATOR_RECIPIENTS } from '../../../src/drivers/simulator/reserved.js';
import { LEASE_MS } from '../../../src/domain/messaging/idempotency.js';
import { allDeviceLogs, eventually } from '../../support/messaging.js';
import { PORTAL, closeWindowForTwoHours, signed, startHarness, startInstalled, startPortal, webhookEvent, workflowPayload, type HubSpotHarness } from './helpers.js';

/** The device log's entries of `text`: the line got it this many times. */
const onDevice = async (h: HubSpotHarness, text: string) => (await allDeviceLogs(h.t)).filter((e: { text?: string }) => e.text === text) as { ref?: string; text?: string }[];

/** The first process's send is on the line's device (its answer never came): its message id. */
async function stalledOnDevice(h: HubSpotHarness, text: string): Promise<string> {
  const [entry] = await eventually(() => onDevice(h, text), (es) => es.length === 1);
  expect(entry?.ref, `"${text}" reached the line`).toMatch(/^msg_/);
  return entry!.ref!;
}

async function messageStatus(h: HubSpotHarness, id: string) {
  const res = await h.t.api('GET', `/api/v1/messages/${id}`);
  expect(res.statusCode).toBe(200);
  return res.json().message.status as string;
}

// Two processes on one database (the retry reaches the other one, as after a crash): on PostgreSQL,
// as the other multi-process tests (two SQLite connections in one Node process block each other's
// event loop: better-sqlite3 waits synchronously on a lock).
describe.each(['postgres'] as const)('a send whose line has not answered (%s)', (kind) => {
  let h: HubSpotHarness;
  let h2: HubSpotHarness | undefined;
  afterEach(async () => {
    await h2?.close();
    h2 = undefined;
    await h.close();
  });

  it('workflow action: 429 with Retry-After and nothing recorded on the callbackId; once reconciled, the retry answers the message that went out', async () => {
    let contact: string;
    ({ h, contact } = await startInstalled(kind));
    h2 = await startHarness(kind, {}, h);
    const payload = workflowPayload(PORTAL, contact, 'cb-stalled', { phone: SIMULATOR_RECIPIENTS.stallsAfterDevice, message: 'Hello from a dead process' });
    // Process 1 takes the action; the line gets the text and its answer never comes: no outcome, HubSpot retries.
    const first = await signed(h, 'POST', '/crm/hubspot/workflow/send', payload);
    expect(first.statusCode, first.body).toBe(429);
    expect(first.headers['retry-after']).toBe('30');
    expect(first.json()).toMatchObject({ ok: false, code: 1012 });
    expect(first.json().outputFields).toBeUndefined();
    const messageId = await stalledOnDevice(h, 'Hello from a dead process');
    expect(await messageStatus(h, messageId)).toBe('sending');

    // HubSpot's retry reaches process 2 (after the claim's lease, as if process 1 had died): the message is still being confirmed.
    h2.t.clock.advance(LEASE_MS + 60_000);
    const retry = await signed(h2, 'POST', '/crm/hubspot/workflow/send', payload);
    expect(retry.statusCode).toBe(429);
    expect(retry.headers['retry-after']).toBe('30');
    expect(retry.json()).toMatchObject({ ok: false, code: 1012 });
    expect(retry.json().duplicate).toBeUndefined();

    // Reconciliation asks the line: it was sent. HubSpot's next retry is answered from that message.
    await h2.t.services.sendReconciler.sweep();
    expect(await messageStatus(h2, messageId)).toBe('sent');
    h2.t.clock.advance(30_000);
    const answered = await signed(h2, 'POST', '/crm/hubspot/workflow/send', payload);
    expect(answered.statusCode).toBe(200);
    expect(answered.json()).toMatchObject({ ok: true, message_id: messageId, outputFields: { hs_execution_state: 'SUCCESS', message_id: messageId } });
    // Recorded for good now: days later (the pipeline's own key long gone), the same answer, a duplicate.
    h2.t.clock.advance(2 * 86_400_000);
    const later = await signed(h2, 'POST', '/crm/hubspot/workflow/send', payload);
    expect(later.json()).toMatchObject({ ok: true, duplicate: true, outputFields: { hs_execution_state: 'SUCCESS', message_id: messageId } });
    expect(await onDevice(h2, 'Hello from a dead process')).toHaveLength(1);
  });

  it('held workflow action: tried again later, then completed SUCCESS with the message that went out', async () => {
    let contact: string;
    ({ h, contact } = await startInstalled(kind));
    h2 = await startHarness(kind, {}, h);
    await closeWindowForTwoHours(h, h2);
    const payload = workflowPayload(PORTAL, contact, 'cb-held-stalled', { phone: SIMULATOR_RECIPIENTS.stallsAfterDevice, message: 'Good morning from a dead process' });
    const first = await signed(h, 'POST', '/crm/hubspot/workflow/send', payload);
    expect(first.json().outputFields.hs_execution_state).toBe('BLOCK');
    // The window opens: process 1's job sends the held action; the line gets it, its answer never comes.
    for (const x of [h, h2]) x.t.clock.advance(2 * 3_600_000 + 60_000);
    expect(await h.t.services.hubspot!.heldActions.tick()).toBe(1);
    const messageId = await stalledOnDevice(h, 'Good morning from a dead process');
    // No outcome: HubSpot is told nothing yet.
    expect(h.hs.completions).toHaveLength(0);

    // Process 2, after the row's lease (two minutes): still in progress, so HubSpot is told nothing yet.
    h2.t.clock.advance(3 * 60_000);
    expect(await h2.t.services.hubspot!.heldActions.tick()).toBe(1);
    expect(h.hs.completions).toHaveLength(0);
    const replay = await signed(h2, 'POST', '/crm/hubspot/workflow/send', payload);
    expect(replay.json()).toMatchObject({ duplicate: true, outputFields: { hs_execution_state: 'BLOCK' } });

    // Reconciled: the next attempt is answered from the message and HubSpot is told SUCCESS with it.
    await h2.t.services.sendReconciler.sweep();
    h2.t.clock.advance(31 * 60_000);
    expect(await h2.t.services.hubspot!.heldActions.tick()).toBe(1);
    expect(h.hs.completions.map((c) => c.outputFields)).toEqual([{ hs_execution_state: 'SUCCESS', message_id: messageId }]);
    const done = await signed(h2, 'POST', '/crm/hubspot/workflow/send', payload);
    expect(done.json()).toMatchObject({ ok: true, duplicate: true, outputFields: { hs_execution_state: 'SUCCESS', message_id: messageId } });
    expect(await onDevice(h2, 'Good morning from a dead process')).toHaveLength(1);
  });

  it('contact-creation auto-send: pending while the message is confirmed, then sent with that message', async () => {
    h = await startPortal(kind);
    h2 = await startHarness(kind, {}, h);
    const contact = h.hs.addContact(PORTAL, { firstname: 'Ada', mobilephone: SIMULATOR_RECIPIENTS.stallsAfterDevice });
    expect((await h.t.api('PATCH', `/api/v1/integrations/hubspot/${PORTAL}`, { auto_send: { enabled: true, template: 'Welcome {{firstname}}, from a dead process' } })).statusCode).toBe(200);
    await signed(h, 'POST', '/crm/hubspot/webhook', [webhookEvent(PORTAL, contact)]);
    expect(await h.t.services.hubspot!.autoSends.tick()).toBe(1);
    const messageId = await stalledOnDevice(h, 'Welcome Ada, from a dead process');
    const autoSends = async () => (await h2!.t.api('GET', `/api/v1/integrations/hubspot/${PORTAL}/auto-sends`)).json().auto_sends as any[];
    // No outcome: pending, not failed.
    expect(await autoSends()).toMatchObject([{ object_id: contact, status: 'pending', message_id: null }]);

    // The row's lease is on the wall clock (60 s): it is ended here rather than waited for.
    await h.t.testStore.store.database.db.updateTable('hubspot_auto_sends').set({ lease_until: 0 }).execute();
    h2.t.clock.advance(LEASE_MS + 60_000);
    expect(await h2.t.services.hubspot!.autoSends.tick()).toBe(1);
    expect(await autoSends()).toMatchObject([{ object_id: contact, status: 'pending', message_id: null }]);

    await h2.t.services.sendReconciler.sweep();
    h2.t.clock.advance(31_000);
    const reads = h.hs.calls(PORTAL, 'contact-read');
    expect(await h2.t.services.hubspot!.autoSends.tick()).toBe(1);
    expect(await autoSends()).toMatchObject([{ object_id: contact, status: 'sent', message_id: messageId }]);
    // The retry sent what the first attempt rendered, without reading the contact again.
    expect(h.hs.calls(PORTAL, 'contact-read')).toBe(reads);
    expect(await onDevice(h2, 'Welcome Ada, from a dead process')).toHaveLength(1);
  });
});
