/**
 * A workflow action refused only for time (outside the sending window, every line at its
 * first-touch limit) is held: HubSpot is answered BLOCK, the job sends it once it can and completes
 * the action through HubSpot's callbacks API. Before, it was FAIL_CONTINUE and never texted.
 * The project's daily cap stays an immediate FAIL_CONTINUE. All by the test clock.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STORE_KINDS } from '../../support/stores.js';
import { allDeviceLogs, moveToNextNoonUtc, prepareSandbox } from '../../support/messaging.js';
import { PORTAL, closeWindowForTwoHours, install, installOf, signed, startHarness, startPortal, workflowPayload, type HubSpotHarness } from './helpers.js';

const HOUR = 3_600_000;
const texts = async (h: HubSpotHarness, text: string) => (await allDeviceLogs(h.t)).map((e) => JSON.stringify(e)).filter((x) => x.includes(text));
const send = (h: HubSpotHarness, callbackId: string, phone: string, message = 'Morning {{firstname}}') =>
  signed(h, 'POST', '/crm/hubspot/workflow/send', workflowPayload(PORTAL, '501', callbackId, { phone, message }), { version: 'v2' });

/** The project's held workflow actions of the portal (GET …/held-actions). */
async function heldList(h: HubSpotHarness, query = '') {
  const res = await h.t.api('GET', `/api/v1/integrations/hubspot/${PORTAL}/held-actions${query}`);
  expect(res.statusCode).toBe(200);
  return res.json();
}

/** ISO 8601 duration → ms (days, hours, minutes). */
function durationMs(iso: string): number {
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?)?$/.exec(iso);
  expect(m, iso).not.toBeNull();
  return ((Number(m![1] ?? 0) * 24 + Number(m![2] ?? 0)) * 60 + Number(m![3] ?? 0)) * 60_000;
}

describe.each(STORE_KINDS)('held workflow actions (%s)', (kind) => {
  let h: HubSpotHarness;
  beforeEach(async () => {
    h = await startPortal(kind);
    h.hs.resetCalls();
  });
  afterEach(async () => h.close());
  const job = () => h.t.services.hubspot!.heldActions;

  it('outside the sending window: BLOCK, nothing sent; when the window opens, sent once and completed SUCCESS', async () => {
    await closeWindowForTwoHours(h);
    const first = await send(h, 'cb-night', '+14155550701');
    expect(first.statusCode).toBe(200);
    const body = first.json();
    expect(body).toMatchObject({ outputFields: { hs_execution_state: 'BLOCK' }, ok: true, held: true, reason: 'outside sending window' });
    // Long enough for the window to open, with a margin: more than the two hours, at least a day.
    expect(durationMs(body.outputFields.hs_expiration_duration)).toBeGreaterThanOrEqual(24 * HOUR);
    expect(Date.parse(body.next_attempt_at) - h.t.clock.now()).toBeLessThanOrEqual(2 * HOUR);
    expect(await texts(h, 'Morning Ada')).toHaveLength(0);
    // The project sees it held, and when it is tried next.
    expect((await installOf(h, PORTAL))!.held_actions).toEqual({ held: 1, completing: 0, completed: 0, abandoned: 0, next_attempt_at: body.next_attempt_at });
    expect((await heldList(h)).held_actions).toEqual([
      { callback_id: 'cb-night', object_id: '501', state: 'held', reason: 'outside sending window', next_attempt_at: body.next_attempt_at, hold_expires_at: body.hold_expires_at, outcome: null, message_id: null, chat_id: null, last_error: null, created_at: expect.any(String), completed_at: null },
    ]);

    // HubSpot's retry of the same callbackId while held: BLOCK again, no send.
    const retry = await send(h, 'cb-night', '+14155550701');
    expect(retry.json()).toMatchObject({ outputFields: { hs_execution_state: 'BLOCK' }, held: true, duplicate: true });
    await job().drain();
    h.t.clock.advance(HOUR);
    await job().drain();
    expect(await texts(h, 'Morning Ada')).toHaveLength(0);
    expect(h.hs.completions).toHaveLength(0);

    h.t.clock.advance(HOUR + 60_000);
    await job().drain();
    await job().drain();
    expect(await texts(h, 'Morning Ada')).toHaveLength(1);
    expect(h.hs.completions).toEqual([{ portalId: PORTAL, callbackId: 'cb-night', outputFields: { hs_execution_state: 'SUCCESS', message_id: expect.stringMatching(/^msg_/) }, at: expect.any(Number) }]);
    expect(h.hs.calls(PORTAL, 'callback-complete')).toBe(1);
    // The completion is the action's one HubSpot call: shown, and counted against the CRM daily limit (only token refreshes, e.g. the one two hours on, are not).
    expect((await installOf(h, PORTAL))!.calls_today).toMatchObject({ workflow_callback: 1, total_counted: 1 });
    expect((await installOf(h, PORTAL))!.held_actions).toEqual({ held: 0, completing: 0, completed: 1, abandoned: 0, next_attempt_at: null });
    const done = (await heldList(h, '?state=completed')).held_actions;
    expect(done).toEqual([expect.objectContaining({ callback_id: 'cb-night', state: 'completed', reason: null, next_attempt_at: null, outcome: { state: 'SUCCESS', error: null }, message_id: h.hs.completions[0]!.outputFields.message_id, completed_at: expect.any(String) })]);
    // The sent message's conversation, for a link to it.
    const sent = (await h.t.api('GET', `/api/v1/messages/${done[0].message_id}`)).json().message;
    expect(done[0].chat_id).toBe(sent.chat_id);
    expect((await heldList(h, '?state=held')).held_actions).toEqual([]);

    // A later replay answers what HubSpot was told, and sends nothing.
    const later = await send(h, 'cb-night', '+14155550701');
    expect(later.json()).toMatchObject({ ok: true, duplicate: true, outputFields: { hs_execution_state: 'SUCCESS', message_id: h.hs.completions[0]!.outputFields.message_id } });
    expect(await texts(h, 'Morning Ada')).toHaveLength(1);
  });

  it('every line at its first-touch gap: BLOCK until a line is free; the daily cap stays an immediate FAIL_CONTINUE', async () => {
    // The daily cap counts per day: no midnight crossed in the 20 minutes this test moves.
    moveToNextNoonUtc(h.t.clock);
    // Two lines, one first touch each: the third must wait the 10-minute gap.
    expect((await send(h, 'cb-a', '+14155550711', 'Hi A')).json().outputFields.hs_execution_state).toBe('SUCCESS');
    expect((await send(h, 'cb-b', '+14155550712', 'Hi B')).json().outputFields.hs_execution_state).toBe('SUCCESS');
    const third = await send(h, 'cb-c', '+14155550713', 'Hi C');
    expect(third.json()).toMatchObject({ outputFields: { hs_execution_state: 'BLOCK' }, held: true, reason: 'lines saturated' });
    // The project sees it waits for a free line (more lines would help), not for the window.
    expect((await heldList(h)).held_actions).toEqual([expect.objectContaining({ callback_id: 'cb-c', state: 'held', reason: 'lines saturated' })]);
    await job().drain();
    expect(await texts(h, 'Hi C')).toHaveLength(0);
    h.t.clock.advance(10 * 60_000 + 1000);
    await job().drain();
    expect(await texts(h, 'Hi C')).toHaveLength(1);
    expect((await heldList(h)).held_actions).toEqual([expect.objectContaining({ callback_id: 'cb-c', state: 'completed', reason: null })]);
    expect(h.hs.completions.map((c) => [c.callbackId, c.outputFields.hs_execution_state])).toEqual([['cb-c', 'SUCCESS']]);

    await h.t.admin('PATCH', '/admin/v1/tenants/demo', { daily_first_touch_cap: 3 });
    h.t.clock.advance(10 * 60_000 + 1000);
    const capped = await send(h, 'cb-d', '+14155550714', 'Hi D');
    expect(capped.json()).toMatchObject({ outputFields: { hs_execution_state: 'FAIL_CONTINUE', error: 'daily cap reached' }, ok: false, error: 'daily cap reached' });
  });

  it('held for the window, then at its time every line at its first-touch gap: held again, and the list says so', async () => {
    await closeWindowForTwoHours(h);
    expect((await send(h, 'cb-twice', '+14155550761')).json()).toMatchObject({ held: true, reason: 'outside sending window' });
    expect((await heldList(h)).held_actions).toEqual([expect.objectContaining({ callback_id: 'cb-twice', state: 'held', reason: 'outside sending window' })]);

    // The window opens; two first touches take both lines before the held action's turn.
    h.t.clock.advance(2 * HOUR + 60_000);
    expect((await send(h, 'cb-e', '+14155550762', 'Hi E')).json().outputFields.hs_execution_state).toBe('SUCCESS');
    expect((await send(h, 'cb-f', '+14155550763', 'Hi F')).json().outputFields.hs_execution_state).toBe('SUCCESS');
    await job().drain();
    expect(await texts(h, 'Morning Ada')).toHaveLength(0);
    const again = (await heldList(h, '?state=held')).held_actions;
    expect(again).toEqual([expect.objectContaining({ callback_id: 'cb-twice', state: 'held', reason: 'lines saturated' })]);
    // HubSpot's retry of the callbackId is answered what it waits for now.
    expect((await send(h, 'cb-twice', '+14155550761')).json()).toMatchObject({ outputFields: { hs_execution_state: 'BLOCK' }, held: true, duplicate: true, reason: 'lines saturated' });

    h.t.clock.advance(10 * 60_000 + 1000);
    await job().drain();
    expect(await texts(h, 'Morning Ada')).toHaveLength(1);
    expect((await heldList(h, '?state=completed')).held_actions).toEqual([expect.objectContaining({ callback_id: 'cb-twice', reason: null, outcome: { state: 'SUCCESS', error: null } })]);
  });

  it('a held action that meets the daily cap when its time comes completes FAIL_CONTINUE "daily cap reached", unsent', async () => {
    await closeWindowForTwoHours(h);
    expect((await send(h, 'cb-cap', '+14155550721')).json().held).toBe(true);
    await h.t.admin('PATCH', '/admin/v1/tenants/demo', { daily_first_touch_cap: 0 });
    h.t.clock.advance(2 * HOUR + 60_000);
    await job().drain();
    expect(await texts(h, 'Morning Ada')).toHaveLength(0);
    expect(h.hs.completions.map((c) => c.outputFields)).toEqual([{ hs_execution_state: 'FAIL_CONTINUE', error: 'daily cap reached' }]);
    expect((await heldList(h)).held_actions).toEqual([expect.objectContaining({ callback_id: 'cb-cap', state: 'completed', outcome: { state: 'FAIL_CONTINUE', error: 'daily cap reached' }, message_id: null })]);
  });

  it('HubSpot down when the action is completed: retried with backoff, the text sent once', async () => {
    await closeWindowForTwoHours(h);
    expect((await send(h, 'cb-down', '+14155550731')).json().held).toBe(true);
    h.hs.fault('callback-complete', { status: 503 }, { times: 2 });
    h.hs.fault('callback-complete', { status: 429, retryAfterSeconds: 120 });
    h.t.clock.advance(2 * HOUR + 60_000);
    await job().drain();
    expect(await texts(h, 'Morning Ada')).toHaveLength(1);
    expect(h.hs.calls(PORTAL, 'callback-complete')).toBe(1);
    // Not due again before its backoff.
    await job().drain();
    expect(h.hs.calls(PORTAL, 'callback-complete')).toBe(1);
    for (const wait of [30_000, 60_000, 120_000]) {
      h.t.clock.advance(wait);
      await job().drain();
    }
    expect(h.hs.calls(PORTAL, 'callback-complete')).toBe(4);
    expect(h.hs.completions.map((c) => c.outputFields.hs_execution_state)).toEqual(['SUCCESS']);
    expect(await texts(h, 'Morning Ada')).toHaveLength(1);
  });

  it('not sent before the hold ends (no worker ran): completed FAIL_CONTINUE "hold expired", nothing sent', async () => {
    await closeWindowForTwoHours(h);
    const held = (await send(h, 'cb-late', '+14155550741')).json();
    const expiresAt = Date.parse(held.hold_expires_at);
    h.t.clock.advance(expiresAt - h.t.clock.now() - 30 * 60_000);
    await job().drain();
    expect(await texts(h, 'Morning Ada')).toHaveLength(0);
    expect(h.hs.completions.map((c) => c.outputFields)).toEqual([{ hs_execution_state: 'FAIL_CONTINUE', error: 'hold expired' }]);
    expect((await send(h, 'cb-late', '+14155550741')).json()).toMatchObject({ ok: false, replayed: true, error: 'hold expired', outputFields: { hs_execution_state: 'FAIL_CONTINUE' } });
    expect((await send(h, 'cb-late', '+14155550741')).json()).not.toHaveProperty('duplicate');
  });

  it('the portal uninstalled while held: nothing sent, nothing completed', async () => {
    await closeWindowForTwoHours(h);
    expect((await send(h, 'cb-gone', '+14155550751')).json().held).toBe(true);
    expect((await h.t.api('DELETE', `/api/v1/integrations/hubspot/${PORTAL}`)).statusCode).toBe(200);
    h.t.clock.advance(2 * HOUR + 60_000);
    await job().drain();
    expect(await texts(h, 'Morning Ada')).toHaveLength(0);
    expect(h.hs.completions).toHaveLength(0);
  });
});

// Two SQLite connections in one Node process block each other's event loop: another process is tested on PostgreSQL.
it('two processes on one PostgreSQL working the held actions at once: each texted once, each completed once', async () => {
  const a = await startHarness('postgres');
  let b: HubSpotHarness | undefined;
  try {
    await prepareSandbox(a.t);
    expect((await install(a, PORTAL)).statusCode).toBe(200);
    b = await startHarness('postgres', {}, a);
    await closeWindowForTwoHours(a, b);
    const ids = [0, 1].map((i) => `cb-race-${i}`);
    for (const [i, id] of ids.entries()) expect((await send(a, id, `+1415555076${i}`, `Race ${i}`)).json().held).toBe(true);
    for (const x of [a, b]) x.t.clock.advance(2 * HOUR + 60_000);
    const jobA = a.t.services.hubspot!.heldActions;
    const jobB = b.t.services.hubspot!.heldActions;
    // Both at once, twice: a row is one owner's at a time (two lines: both can go now).
    await Promise.all([jobA.tick(), jobB.tick(), jobA.tick(), jobB.tick()]);
    await Promise.all([jobA.drain(), jobB.drain()]);
    for (const i of [0, 1]) expect(await texts(a, `Race ${i}`)).toHaveLength(1);
    expect(a.hs.completions.map((c) => c.callbackId).sort()).toEqual(ids);
    expect(a.hs.calls(PORTAL, 'callback-complete')).toBe(2);
  } finally {
    await b?.close();
    await a.close();
  }
});
