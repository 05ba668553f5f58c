/**
 * The housekeeping pass deletes what is dead past its expiry, and nothing a user can still read:
 * a keyed send's record is answered within its six hours and gone after them (the key then sends
 * anew), a HubSpot workflow record is kept for good, a claim whose request still runs is kept,
 * an uploaded attachment past retention keeps answering "has expired", a voice note a message
 * names keeps its audio, and a pass deletes at most a batch per kind. Attachments' files past
 * retention: housekeeping-attachment-files.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { STORE_KINDS } from '../support/stores.js';
import { allDeviceLogs, firstTouch, prepareSandbox } from '../support/messaging.js';
import { housekeeping } from '../../src/domain/housekeeping.js';
import { IDEMPOTENCY_TTL_MS } from '../../src/domain/messaging/idempotency.js';
import { FOREVER, once } from '../../src/crm/hubspot/once.js';
import { makeWav16Fast, sine } from '../audio/fixtures.js';
import { fileBytes } from '../support/files.js';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const METRICS_TOKEN = 'housekeeping-metrics-token-0123';

describe.each(STORE_KINDS)('housekeeping (%s)', (kind) => {
  let t: TestApp;
  let tenantId: string;
  beforeAll(async () => {
    t = await startTestApp(kind, { METRICS_TOKEN });
    await prepareSandbox(t);
    tenantId = (await t.testStore.store.tenants.getBySlug(t.demo.tenant))!.id;
  });
  afterAll(async () => t?.close());

  const store = () => t.testStore.store;
  const pass = () => t.services.housekeeping.drain();
  const record = (route: string, key: string) => store().idempotency.get(tenantId, route, key);
  const count = async (table: 'idempotency_keys' | 'attachments') =>
    Number((await store().database.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const claim = (key: string, expiresAt: number, leaseUntil: number | null, state: 'in_progress' | 'done' = 'in_progress') =>
    store().idempotency.claim(
      { tenant_id: tenantId, route: 'send', key, fingerprint: 'f', identity: 'i', state, http_status: null, response: null, created_at: t.clock.now(), expires_at: expiresAt, owner: 'o', lease_until: leaseUntil },
      t.clock.now(),
    );

  it("answers a keyed send from its record within six hours, deletes it after them, and the key then sends anew", async () => {
    const request = { phone: '+14155550161', body: 'kept six hours', idempotency_key: 'hk-send' };
    const first = await firstTouch(t, request);
    expect(first.statusCode, first.body).toBe(200);
    const sent = (await allDeviceLogs(t)).length;

    t.clock.advance(IDEMPOTENCY_TTL_MS - HOUR);
    await pass();
    const again = await t.api('POST', '/api/v1/send', request);
    expect(again.json().message_id).toBe(first.json().message_id);
    expect((await allDeviceLogs(t)).length).toBe(sent);

    t.clock.advance(HOUR + 1_000);
    await pass();
    expect(await record('send', 'hk-send')).toBeUndefined();
    const after = await t.api('POST', '/api/v1/send', request);
    expect(after.statusCode, after.body).toBe(200);
    expect(after.json().message_id).not.toBe(first.json().message_id);
    expect((await allDeviceLogs(t)).length).toBe(sent + 1);
  });

  it('keeps a HubSpot workflow record (kept for good) however long passes', async () => {
    const slot = { tenantId: tenantId, route: 'crm:hubspot:workflow', key: 'portal:cb-1', ttlMs: FOREVER };
    await once({ store: store(), clock: t.clock }, slot, async () => 'done once', String);
    t.clock.advance(400 * DAY);
    await pass();
    expect(await record('crm:hubspot:workflow', 'portal:cb-1')).toMatchObject({ state: 'done' });
    let ran = false;
    const replayed = await once({ store: store(), clock: t.clock }, slot, async () => ((ran = true), 'twice'), String);
    expect(replayed).toEqual({ result: 'done once', duplicate: true });
    expect(ran).toBe(false);
  });

  it('keeps a claim in progress under a live lease past its expiry, and deletes it once the lease ran out', async () => {
    const now = t.clock.now();
    await claim('running', now + 1_000, now + 3 * HOUR);
    await claim('abandoned', now + 1_000, now + 60_000);
    t.clock.advance(2 * HOUR);
    await pass();
    expect(await record('send', 'running')).toMatchObject({ state: 'in_progress' });
    expect(await record('send', 'abandoned')).toBeUndefined();
    t.clock.advance(HOUR + 1_000);
    await pass();
    expect(await record('send', 'running')).toBeUndefined();
  });

  it('deletes at most a batch per kind at a time; passes at once delete each row once', async () => {
    await pass();
    const before = await count('idempotency_keys');
    const now = t.clock.now();
    for (let i = 0; i < 5; i++) await claim(`batch-${i}`, now + 1_000, null, 'done');
    t.clock.advance(2_000);
    const small = housekeeping({ store: store(), clock: t.clock, blobs: t.blobs }, { batch: 2 });
    expect((await small.tick()).idempotency_record).toBe(2);
    expect(await count('idempotency_keys')).toBe(before + 3);
    // Two passes racing (as from two processes): together they delete the rest, no more.
    const other = housekeeping({ store: store(), clock: t.clock, blobs: t.blobs }, { batch: 2 });
    await Promise.all([small.drain(), other.drain()]);
    expect(await count('idempotency_keys')).toBe(before);
  });

  it('deletes upload slots never uploaded to a day after they expired; an expired upload keeps answering "has expired"', async () => {
    const slotOf = async (size: number) => (await t.api('POST', '/api/v1/attachments', { filename: 'p.png', content_type: 'image/png', size_bytes: size })).json();
    const abandoned = await slotOf(16);
    const bytes = fileBytes('image/png', 32);
    const kept = await slotOf(bytes.length);
    const put = await t.request({
      method: 'PUT', url: `/api/v1/attachments/${kept.attachment_id}/upload`, payload: bytes,
      headers: { authorization: `Bearer ${t.demo.signing_secret}`, 'content-type': 'image/png' },
    });
    expect(put.statusCode, put.body).toBe(200);

    t.clock.advance(16 * 60_000);
    await pass();
    expect(await store().media.getAttachment(tenantId, abandoned.attachment_id)).toBeDefined();
    t.clock.advance(DAY);
    await pass();
    expect(await store().media.getAttachment(tenantId, abandoned.attachment_id)).toBeUndefined();
    expect((await t.api('GET', `/api/v1/attachments/${abandoned.attachment_id}`)).json().error).toMatchObject({ code: 5001 });

    t.clock.advance(31 * DAY);
    await pass();
    const res = await t.api('GET', `/api/v1/attachments/${kept.attachment_id}`);
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toMatchObject({ code: 5001, message: expect.stringContaining('has expired') });
  });

  it('deletes a staged voice note never sent, with its file, a day after it expired; keeps those a message names', async () => {
    const line = t.demo.phone_line_ids[0]!;
    const wav = makeWav16Fast(44_100, 1, 44_100, sine(440, 44_100)).toString('base64');
    const stage = async () => {
      const res = await t.api('POST', '/api/v1/voice-notes', { audio_base64: wav, mime_type: 'audio/wav', phone_line_id: line });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().voice_note_id as string;
    };
    const send = async (id: string) => {
      const res = await firstTouch(t, { phone: '+14155550162', phone_line_id: line, voice_note: { voice_note_id: id } });
      expect(res.statusCode, res.body).toBe(200);
    };
    const audio = (id: string) => t.api('GET', `/api/v1/voice-notes/${id}/audio.ogg`);
    const unsent = await stage();
    const unsentKey = (await store().media.getVoiceNote(tenantId, unsent))!.blob_key;
    const sent = await stage();
    await send(sent);
    // A send that failed gives its note back: unused again, yet its message names it.
    const givenBack = await stage();
    await send(givenBack);
    await store().media.releaseVoiceNote(givenBack);

    t.clock.advance(16 * 60_000);
    await pass();
    expect((await audio(unsent)).statusCode).toBe(200);
    t.clock.advance(DAY);
    await pass();
    expect(await store().media.getVoiceNote(tenantId, unsent)).toBeUndefined();
    expect(await t.blobs.size(unsentKey)).toBeUndefined();
    expect((await audio(unsent)).json().error).toMatchObject({ code: 5001 });
    for (const id of [sent, givenBack]) expect((await audio(id)).statusCode, id).toBe(200);
  });

  it('deletes HubSpot install states never used once expired, and keeps a live one usable', async () => {
    const now = t.clock.now();
    await store().hubspot.insertState({ state_hash: 'expired-state', tenant_id: tenantId, created_at: now, expires_at: now + 1_000 });
    await store().hubspot.insertState({ state_hash: 'live-state', tenant_id: tenantId, created_at: now, expires_at: now + HOUR });
    t.clock.advance(2_000);
    await pass();
    const left = await store().database.db.selectFrom('hubspot_oauth_states').select('state_hash').execute();
    expect(left.map((r) => r.state_hash)).toEqual(['live-state']);
    expect(await store().hubspot.consumeState('live-state', t.clock.now())).toBe(tenantId);
  });

  it('counts the rows it deleted by kind in the metrics', async () => {
    const now = t.clock.now();
    await claim('metered', now + 1_000, null, 'done');
    t.clock.advance(2_000);
    await pass();
    const res = await t.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.body).toMatch(/^blueline_housekeeping_deleted_rows_total\{kind="idempotency_record"\} [1-9]\d*$/m);
    expect(res.body).toMatch(/^blueline_housekeeping_deleted_rows_total\{kind="upload_slot"\} [1-9]\d*$/m);
    expect(res.body).toMatch(/^blueline_housekeeping_deleted_rows_total\{kind="voice_note"\} [1-9]\d*$/m);
    expect(res.body).toMatch(/^blueline_housekeeping_deleted_rows_total\{kind="attachment_file"\} [1-9]\d*$/m);
  });
});
