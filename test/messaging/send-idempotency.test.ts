/**
 * /send under an idempotency key, on both stores: a key reused with other attachments is the
 * spec's 422 `idempotency_collision` (as on POST /chats, whose media parts are its identity),
 * not a 1002; an identical request still replays, also one recorded before attachments were
 * part of the identity; keys are per project.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { STORE_KINDS } from '../support/stores.js';
import { allDeviceLogs, firstTouch, newRecipient, prepareSandbox, uploadedImage } from '../support/messaging.js';
import { parseResponses } from '../support/raw-http.js';

describe.each(STORE_KINDS)('/send idempotency keys on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(kind);
    await prepareSandbox(t);
  });
  afterAll(async () => t.close());

  const uploaded = (filename: string) => uploadedImage(t, filename);

  it('answers other attachments under the same key with 422 idempotency_collision, and sends nothing', async () => {
    const [a, b] = [await uploaded('a.png'), await uploaded('b.png')];
    const phone = newRecipient();
    const key = `atts-${kind}`;
    const first = await firstTouch(t, { phone, body: 'the photo', attachments: [a], idempotency_key: key });
    expect(first.statusCode, first.body).toBe(200);
    const sentBefore = (await allDeviceLogs(t)).length;

    for (const attachments of [[b], [a, b], [{ attachment_id: b }]]) {
      const res = await t.api('POST', '/api/v1/send', { phone, body: 'the photo', attachments, idempotency_key: key });
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json()).toMatchObject({ status: 'failed', error: 'idempotency_collision', code: 'idempotency_collision', retryable: false });
      expect(res.json().reason).toContain('attachments');
    }
    // Without the attachments it is another message too.
    const bare = await t.api('POST', '/api/v1/send', { phone, body: 'the photo', idempotency_key: key });
    expect(bare.statusCode, bare.body).toBe(422);
    // Another field than the content is a collision too, and the reason says so.
    for (const other of [{ effect: 'confetti' }, { phone_line_id: first.json().phone_line_id }]) {
      const res = await t.api('POST', '/api/v1/send', { phone, body: 'the photo', attachments: [a], ...other, idempotency_key: key });
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json()).toMatchObject({ status: 'failed', code: 'idempotency_collision', retryable: false });
      expect(res.json().reason).toContain('the same content but other request parameters');
    }

    const again = await t.api('POST', '/api/v1/send', { phone, body: 'the photo', attachments: [a], idempotency_key: key });
    expect(again.statusCode).toBe(200);
    expect(again.body).toBe(first.body);
    expect((await allDeviceLogs(t)).length).toBe(sentBefore);
  });

  it('replays an identical request whose record was written before attachments were in the identity', async () => {
    const a = await uploaded('c.png');
    const phone = newRecipient();
    const key = `legacy-${kind}`;
    const first = await firstTouch(t, { phone, body: 'old record', attachments: [a], idempotency_key: key });
    expect(first.statusCode, first.body).toBe(200);
    // The identity as the previous version wrote it (recipient, body, voice note).
    const legacy = JSON.stringify({ body: 'old record', recipient: phone, voice_note_id: null }); // keys sorted, as stableJson writes them
    const updated = await t.testStore.store.database.db.updateTable('idempotency_keys').set({ identity: legacy }).where('key', '=', key).executeTakeFirst();
    expect(Number(updated.numUpdatedRows)).toBe(1);
    const again = await t.api('POST', '/api/v1/send', { phone, body: 'old record', attachments: [a], idempotency_key: key });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.body).toBe(first.body);
  });

  it('holds a key for six hours of the clock, then frees it for a new request', async () => {
    const phone = newRecipient();
    const key = `six-hours-${kind}`;
    const first = await firstTouch(t, { phone, body: 'morning', idempotency_key: key });
    expect(first.statusCode, first.body).toBe(200);
    t.clock.advance(6 * 3600_000 - 60_000);
    const late = await t.api('POST', '/api/v1/send', { phone, body: 'evening', idempotency_key: key });
    expect(late.json()).toMatchObject({ status: 'failed', code: 'idempotency_collision' });
    expect((await t.api('POST', '/api/v1/send', { phone, body: 'morning', idempotency_key: key })).body).toBe(first.body);
    t.clock.advance(61_000);
    const fresh = await t.api('POST', '/api/v1/send', { phone, body: 'evening', idempotency_key: key });
    expect(fresh.statusCode, fresh.body).toBe(200);
    expect(fresh.json().message_id).not.toBe(first.json().message_id);
    expect((await t.api('POST', '/api/v1/send', { phone, body: 'evening', idempotency_key: key })).body).toBe(fresh.body);
  });

  it('keeps each project\'s keys its own', async () => {
    const other = (await t.admin('POST', '/admin/v1/accounts', { name: `Keys ${kind}` })).json();
    const slug = `keys-${kind}`;
    expect((await t.admin('POST', '/admin/v1/tenants', { account_id: other.account.id, slug })).statusCode).toBe(201);
    const line = (await t.admin('POST', '/admin/v1/lines', { tenant: slug, phone_number: '+14155550931', driver: 'simulator' })).json().phone_line;
    await t.admin('PATCH', `/admin/v1/lines/${line.id}`, { driver_config: { receipt_delay_ms: 5 } });
    const phone = newRecipient();
    const key = `shared-${kind}`;
    const mine = await firstTouch(t, { phone, body: 'from demo', idempotency_key: key });
    expect(mine.statusCode, mine.body).toBe(200);
    // The same key in another project: its own send (a different body is no collision there).
    const theirs = await t.api('POST', '/api/v1/send', { phone, body: 'from the other project', idempotency_key: key }, { secret: other.signing_secret });
    expect(theirs.statusCode, theirs.body).toBe(200);
    expect(theirs.json()).toMatchObject({ lead_created: true, phone_line_id: line.id });
    expect(theirs.json().message_id).not.toBe(mine.json().message_id);
  });
});

describe('the Idempotency-Key header sent twice', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    await prepareSandbox(t);
    port = Number(new URL(await t.app.listen({ port: 0, host: '127.0.0.1' })).port);
  });
  afterAll(async () => t.close());

  /** A real request: Node joins a repeated header ("a, b"); fastify's inject does not. */
  async function send(keys: string[], body: object) {
    const payload = JSON.stringify(body);
    const head = [
      'POST /api/v1/send HTTP/1.1',
      'Host: 127.0.0.1',
      `Authorization: Bearer ${t.demo.signing_secret}`,
      'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(payload)}`,
      ...keys.map((k) => `Idempotency-Key: ${k}`),
      'Connection: close',
    ];
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write(`${head.join('\r\n')}\r\n\r\n${payload}`));
      let data = '';
      socket.on('data', (d) => (data += d));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    const [res] = parseResponses(raw);
    if (!res) throw new Error(`no response: ${raw.slice(0, 300)}`);
    return { status: res!.status, json: JSON.parse(res!.body) };
  }

  it('is refused (1002), not taken as one key made of both', async () => {
    t.clock.advance(11 * 60_000);
    const twice = await send(['key-a', 'key-b'], { phone: newRecipient(), body: 'which key?' });
    expect(twice.status).toBe(400);
    expect(twice.json).toMatchObject({ status: 'failed', code: 1002, reason: expect.stringContaining('Idempotency-Key') });
    const same = await send(['key-a', 'key-a'], { phone: newRecipient(), body: 'which key?' });
    expect(same.json).toMatchObject({ status: 'failed', code: 1002 });
    // Once, over the same socket path, it is the key.
    const once = await send(['key-a'], { phone: newRecipient(), body: 'one key' });
    expect(once.status).toBe(200);
  });
});
