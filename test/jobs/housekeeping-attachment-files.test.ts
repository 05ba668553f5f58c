/**
 * Housekeeping deletes an attachment's FILE (uploads and inbound media) a day after its 30-day
 * retention and keeps its row: every answer about it stays the same (404 / 5001 "has expired",
 * messages naming it), a second pass does nothing, a delete that failed is tried again and does
 * not hold back the files after it, passes in two processes at once mark each row once, and the
 * same holds with the blobs in a bucket.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { STORE_KINDS } from '../support/stores.js';
import { eventually, firstTouch, prepareSandbox } from '../support/messaging.js';
import { startS3, type TestS3 } from '../support/s3.js';
import { housekeeping } from '../../src/domain/housekeeping.js';
import { makeWav16Fast, sine } from '../audio/fixtures.js';
import { fileBytes } from '../support/files.js';

const DAY = 24 * 3600_000;

describe.each(STORE_KINDS)("attachment files past retention (%s)", (kind) => {
  let t: TestApp;
  let tenantId: string;
  beforeAll(async () => {
    t = await startTestApp(kind);
    await prepareSandbox(t);
    tenantId = (await t.testStore.store.tenants.getBySlug(t.demo.tenant))!.id;
  });
  afterAll(async () => t?.close());

  const store = () => t.testStore.store;
  const pass = () => t.services.housekeeping.drain();
  const line = () => t.demo.phone_line_ids[0]!;
  const fileDeleted = async () =>
    Number((await store().database.db.selectFrom('attachments').select((eb) => eb.fn.countAll().as('n')).where('file_deleted_at', 'is not', null).executeTakeFirstOrThrow()).n);
  const upload = async (bytes: Buffer) => {
    const slot = (await t.api('POST', '/api/v1/attachments', { filename: 'kept.png', content_type: 'image/png', size_bytes: bytes.length })).json();
    const put = await t.request({
      method: 'PUT', url: `/api/v1/attachments/${slot.attachment_id}/upload`, payload: bytes,
      headers: { authorization: `Bearer ${t.demo.signing_secret}`, 'content-type': 'image/png' },
    });
    expect(put.statusCode, put.body).toBe(200);
    return slot.attachment_id as string;
  };
  const receive = async (bytes: Buffer, mimeType = 'image/png', filename = 'in.png') => {
    const res = await t.admin('POST', `/admin/v1/lines/${line()}/simulate/inbound`, {
      from: '+14155550163', parts: [{ type: 'media', filename, mime_type: mimeType, content_base64: bytes.toString('base64') }],
    });
    expect(res.statusCode, res.body).toBe(202);
    const events = await t.api('GET', '/api/v1/events?limit=1', undefined, { tenant: 'demo' });
    const id = /in_[0-9a-f]{32}/.exec(events.body)?.[0];
    expect(id, events.body).toBeDefined();
    return id!;
  };
  const row = async (id: string) => (await store().media.getAttachment(tenantId, id))!;
  /** Everything a caller can ask about an attachment and the message naming it (trace ids aside). */
  const answers = async (id: string, messageId: string) => {
    const out: unknown[] = [];
    for (const url of [`/api/v1/attachments/${id}`, `/api/v1/attachments/${id}/content`, `/admin/v1/lines/${line()}/simulate/content/${id}`]) {
      const res = url.startsWith('/admin') ? await t.admin('GET', url) : await t.api('GET', url);
      out.push([url, res.statusCode, res.json().error]);
    }
    out.push((await t.api('GET', `/api/v1/messages/${messageId}`)).json().message);
    return out;
  };

  it('is deleted a day after retention; the row and every answer stay; a second pass does nothing', async () => {
    await pass();
    const sentBytes = fileBytes('image/png', 48);
    const sent = await upload(sentBytes);
    const send = await firstTouch(t, { phone: '+14155550164', phone_line_id: line(), attachments: [sent] });
    expect(send.statusCode, send.body).toBe(200);
    const sentMessage = send.json().message_id as string;
    // The simulator's receipts come a moment after the send: in before both snapshots below, not between them.
    const read = await eventually(() => t.api('GET', `/api/v1/messages/${sentMessage}`), (r) => r.json().message.status === 'read');
    expect(read.json().message.status).toBe('read');
    const inBytes = randomBytes(64);
    const received = await receive(inBytes);
    const inMessage = (await store().database.db.selectFrom('messages').select('id').where('parts', 'like', `%${received}%`).executeTakeFirstOrThrow()).id;
    expect((await t.admin('GET', `/admin/v1/lines/${line()}/simulate/content/${sent}`)).rawPayload.equals(sentBytes)).toBe(true);
    const rows = { sent: await row(sent), received: await row(received) };

    // Past retention every read answers "has expired", while the file is still there.
    t.clock.advance(30 * DAY + 60_000);
    await pass();
    const before = { sent: await answers(sent, sentMessage), received: await answers(received, inMessage) };
    expect(before.sent[0]).toEqual([`/api/v1/attachments/${sent}`, 404, expect.objectContaining({ code: 5001, message: expect.stringContaining('has expired') })]);
    expect(before.sent[2]).toEqual([expect.any(String), 404, expect.objectContaining({ code: 5001, message: expect.stringContaining('has expired') })]);
    expect(JSON.stringify(before.sent[3])).toContain(sent);
    expect(JSON.stringify(before.received[3])).toContain(received);
    expect(await t.blobs.size(rows.sent.blob_key)).toBe(sentBytes.length);
    expect(await t.blobs.size(rows.received.blob_key)).toBe(inBytes.length);

    // A day later the files go: two passes at once (as from two processes) mark each row once.
    t.clock.advance(DAY);
    const marked = await fileDeleted();
    const passedAt = t.clock.now();
    const [a, b] = await Promise.all([
      housekeeping({ store: store(), clock: t.clock, blobs: t.blobs }).tick(),
      housekeeping({ store: store(), clock: t.clock, blobs: t.blobs }).tick(),
    ]);
    expect(a.attachment_file + b.attachment_file).toBe((await fileDeleted()) - marked);
    expect(a.attachment_file + b.attachment_file).toBeGreaterThanOrEqual(2);
    expect(await t.blobs.size(rows.sent.blob_key)).toBeUndefined();
    expect(await t.blobs.size(rows.received.blob_key)).toBeUndefined();
    for (const k of ['sent', 'received'] as const) {
      const after = await row(rows[k].id);
      expect(after).toEqual({ ...rows[k], file_deleted_at: expect.any(Number) });
      expect(after.file_deleted_at).toBeGreaterThanOrEqual(passedAt);
    }
    expect({ sent: await answers(sent, sentMessage), received: await answers(received, inMessage) }).toEqual(before);

    const again = await housekeeping({ store: store(), clock: t.clock, blobs: t.blobs }).tick();
    expect(again.attachment_file).toBe(0);
    const markedAt = (await row(sent)).file_deleted_at;
    t.clock.advance(DAY);
    await pass();
    expect((await row(sent)).file_deleted_at).toBe(markedAt);
  });

  it('keeps a file whose delete failed and deletes it at the next pass', async () => {
    await pass();
    const id = await upload(fileBytes('image/png', 40));
    const key = (await row(id)).blob_key;
    const other = await upload(fileBytes('image/png', 8));
    t.clock.advance(31 * DAY + 1_000);
    // The store refusing this one delete (a network fault, a permission): the rest of the batch goes on.
    const failing = { ...t.blobs, delete: async (k: string) => (k === key ? Promise.reject(new Error('blob store unavailable')) : t.blobs.delete(k)) };
    const first = await housekeeping({ store: store(), clock: t.clock, blobs: failing }).tick();
    expect(first.attachment_file).toBe(1);
    expect((await row(other)).file_deleted_at).not.toBeNull();
    expect(await t.blobs.size(key)).toBe(40);
    expect((await row(id)).file_deleted_at).toBeNull();

    t.clock.advance(60_000);
    await pass();
    expect(await t.blobs.size(key)).toBeUndefined();
    expect((await row(id)).file_deleted_at).toBeGreaterThan((await row(other)).file_deleted_at!);
  });

  it('goes on to the files after those whose delete keeps failing, and tries those again later', async () => {
    t.clock.advance(32 * DAY);
    await pass();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push(await upload(fileBytes('image/png', 10 + i)));
      t.clock.advance(1_000); // oldest first: the failing two come first
    }
    const keys = await Promise.all(ids.map(async (id) => (await row(id)).blob_key));
    const refused = new Set(keys.slice(0, 2));
    const failing = { ...t.blobs, delete: async (k: string) => (refused.has(k) ? Promise.reject(new Error('access denied')) : t.blobs.delete(k)) };
    t.clock.advance(31 * DAY);
    // A batch of two: the two oldest fail, then the next batch reaches the third.
    const h = housekeeping({ store: store(), clock: t.clock, blobs: failing }, { batch: 2 });
    expect((await h.tick()).attachment_file).toBe(0);
    expect((await h.tick()).attachment_file).toBe(1);
    expect(await t.blobs.size(keys[2]!)).toBeUndefined();
    expect((await row(ids[2]!)).file_deleted_at).not.toBeNull();
    for (const k of keys.slice(0, 2)) expect(await t.blobs.size(k)).toBeDefined();

    refused.clear();
    expect((await h.tick()).attachment_file).toBe(2);
    for (const k of keys) expect(await t.blobs.size(k)).toBeUndefined();
  });

  it("answers an inbound voice memo's audio 5001 once expired, as its content", async () => {
    const wav = makeWav16Fast(44_100, 1, 44_100, sine(440, 44_100)).toString('base64');
    const staged = await t.api('POST', '/api/v1/voice-notes', { audio_base64: wav, mime_type: 'audio/wav', phone_line_id: line() });
    expect(staged.statusCode, staged.body).toBe(200);
    const caf = await t.blobs.read((await store().media.getVoiceNote(tenantId, staged.json().voice_note_id))!.blob_key);
    const memo = await receive(caf, 'audio/x-caf', 'memo.caf');
    expect((await t.api('GET', `/api/v1/voice-notes/${memo}/audio.ogg`)).statusCode).toBe(200);
    t.clock.advance(30 * DAY);
    const res = await t.api('GET', `/api/v1/voice-notes/${memo}/audio.ogg`);
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toMatchObject({ code: 5001, message: expect.stringContaining('has expired') });
    t.clock.advance(DAY);
    await pass();
    expect((await t.api('GET', `/api/v1/voice-notes/${memo}/audio.ogg`)).json().error).toMatchObject({ code: 5001, message: expect.stringContaining('has expired') });
  });
});

describe("housekeeping with the blobs in a bucket (S3 protocol)", () => {
  let s3: TestS3;
  let t: TestApp;
  let tenantId: string;
  beforeAll(async () => {
    s3 = await startS3();
    t = await startTestApp('sqlite', s3.env);
    await prepareSandbox(t);
    tenantId = (await t.testStore.store.tenants.getBySlug(t.demo.tenant))!.id;
  });
  afterAll(async () => {
    await t?.close();
    await s3?.close();
  });

  it("deletes the objects of attachments past retention, an object already gone included; the rows stay; a second pass does nothing", async () => {
    const upload = async (bytes: Buffer) => {
      const slot = (await t.api('POST', '/api/v1/attachments', { filename: 'b.png', content_type: 'image/png', size_bytes: bytes.length })).json();
      const put = await t.request({
        method: 'PUT', url: `/api/v1/attachments/${slot.attachment_id}/upload`, payload: bytes,
        headers: { authorization: `Bearer ${t.demo.signing_secret}`, 'content-type': 'image/png' },
      });
      expect(put.statusCode, put.body).toBe(200);
      return (await t.testStore.store.media.getAttachment(tenantId, slot.attachment_id))!;
    };
    const line = t.demo.phone_line_ids[0]!;
    const inbound = await t.admin('POST', `/admin/v1/lines/${line}/simulate/inbound`, {
      from: '+14155550165', parts: [{ type: 'media', filename: 'in.png', mime_type: 'image/png', content_base64: randomBytes(90).toString('base64') }],
    });
    expect(inbound.statusCode, inbound.body).toBe(202);
    const inId = /in_[0-9a-f]{32}/.exec((await t.api('GET', '/api/v1/events?limit=1', undefined, { tenant: 'demo' })).body)![0];
    const rows = [await upload(fileBytes('image/png', 30)), await upload(fileBytes('image/png', 20)), (await t.testStore.store.media.getAttachment(tenantId, inId))!];
    const inBucket = async () => new Set(await s3.visibleKeys());
    for (const r of rows) expect(await inBucket(), r.blob_key).toContain(r.blob_key);

    t.clock.advance(31 * DAY - 60_000);
    await t.services.housekeeping.drain();
    for (const r of rows) expect(await inBucket()).toContain(r.blob_key);

    // One object deleted already (as by a pass in another process that stopped before marking its row).
    await t.blobs.delete(rows[1]!.blob_key);
    t.clock.advance(2 * 60_000);
    const first = await housekeeping({ store: t.testStore.store, clock: t.clock, blobs: t.blobs }).tick();
    expect(first.attachment_file).toBe(3);
    const left = await inBucket();
    for (const r of rows) {
      expect(left).not.toContain(r.blob_key);
      expect(await t.testStore.store.media.getAttachment(tenantId, r.id)).toEqual({ ...r, file_deleted_at: expect.any(Number) });
      const res = await t.api('GET', `/api/v1/attachments/${r.id}/content`);
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toMatchObject({ code: 5001, message: expect.stringContaining('has expired') });
    }
    expect((await housekeeping({ store: t.testStore.store, clock: t.clock, blobs: t.blobs }).tick()).attachment_file).toBe(0);
  });
});
