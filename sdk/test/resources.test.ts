/** Every resource method of the SDK against the real service (SQLite, simulator lines). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { Blueline, DEV_INBOX_URL } from '@blueline/sdk';
import { FIRST_TOUCH_GAP_MS, startService, until, type Service } from './support/service.js';
import { sineWav } from './support/audio.js';

let svc: Service;
let client: Blueline;
const PHONE = '+14155550111';

beforeAll(async () => {
  svc = await startService();
  client = new Blueline(svc.options);
});
afterAll(() => svc?.stop());

describe('lines', () => {
  it('lists the demo lines', async () => {
    const lines = await client.lines.list();
    expect(lines.map((l) => l.phone_line_id).sort()).toEqual([...svc.demo.phone_line_ids].sort());
    expect(lines[0]!.service).toBe('imessage');
  });

  it('works with HMAC signing and from the environment', async () => {
    const hmac = new Blueline({ ...svc.options, auth: 'hmac' });
    expect(await hmac.lines.list()).toHaveLength(2);
    // A single-tenant account's signature says whose it is: no tenant needed (as with bearer).
    const { tenant: _, ...withoutTenant } = svc.options;
    expect(await new Blueline({ ...withoutTenant, auth: 'hmac' }).lines.list()).toHaveLength(2);
    const saved = { ...process.env };
    try {
      Object.assign(process.env, { BLUELINE_URL: svc.url, BLUELINE_SECRET: svc.demo.signing_secret, BLUELINE_TENANT: 'demo' });
      expect(await new Blueline().lines.list()).toHaveLength(2);
    } finally {
      process.env = saved;
    }
  });
});

describe('messages', () => {
  let messageId: string;

  it('sends text, then looks it up, edits it and reacts to it', async () => {
    const sent = await client.messages.send({ phone: PHONE, body: 'Hello from the SDK' });
    expect(sent).toMatchObject({ status: 'sent', lead_created: true });
    messageId = sent.message_id;
    const log = await svc.allSent();
    expect(log).toHaveLength(1);

    const message = await client.messages.get(messageId);
    expect(message).toMatchObject({ id: messageId, direction: 'outbound', parts: [{ type: 'text', value: 'Hello from the SDK' }] });

    const edited = await client.messages.edit(messageId, { new_text: 'Hello, edited' });
    expect(edited).toMatchObject({ status: 'edited', message_id: messageId, new_text: 'Hello, edited' });

    const reacted = await client.messages.react(messageId, { reaction: 'love' });
    expect(reacted).toMatchObject({ status: 'reacted', message_id: messageId, reaction: 'love' });
    expect((await client.messages.get(messageId)).reactions).toEqual([{ reaction: 'love', from: 'me', at: reacted.reacted_at }]);
  });

  it('sends an effect and a rich link', async () => {
    expect(await client.messages.send({ phone: PHONE, body: 'Party', effect: 'confetti' })).toMatchObject({ status: 'sent' });
    expect(await client.messages.send({ phone: PHONE, rich_link: 'https://example.com/article' })).toMatchObject({ status: 'sent' });
  });

  it('sends media: upload, then the attachment id', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a4ae0000000049454e44ae426082', 'hex');
    const attachment = await client.attachments.upload(png, { filename: 'dot.png' });
    // The wire's name for the type is refused here, not ignored in favour of the file name's.
    await expect(client.attachments.upload(png, { filename: 'dot.png', content_type: 'image/jpeg' } as never)).rejects.toThrow(/takes `contentType`, not `content_type`/);
    expect(attachment).toMatchObject({ content_type: 'image/png', size_bytes: png.length, filename: 'dot.png' });
    const id = attachment.attachment_id;
    expect(await client.messages.send({ phone: PHONE, body: 'a dot', attachments: [id] })).toMatchObject({ status: 'sent' });

    expect((await client.attachments.get(id)).size_bytes).toBe(png.length);
    const download = await client.attachments.download(id);
    expect(download).toMatchObject({ status: 200, contentType: 'image/png', size: png.length });
    expect(Buffer.from(await new Response(download.body).arrayBuffer())).toEqual(png);
    const range = await client.attachments.download(id, { range: 'bytes=0-7' });
    expect(range.status).toBe(206);
    expect(Buffer.from(await new Response(range.body).arrayBuffer())).toEqual(png.subarray(0, 8));
  });

  it('stages a voice note from a file, base64 or bytes, and sends it', async () => {
    const wav = sineWav(1);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bl-vn-'));
    onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'note.wav');
    fs.writeFileSync(file, wav);
    const lineId = svc.demo.phone_line_ids[0]!;
    const fromFile = await client.voiceNotes.stage({ file, mime_type: 'audio/wav', phone_line_id: lineId });
    expect(fromFile).toMatchObject({ uploaded: true, transcoded: true, container: 'caf', phone_line_id: lineId });
    expect(fromFile.voice_note_id).toMatch(/^vn_/);
    const fromBase64 = await client.voiceNotes.stage({ base64: wav.toString('base64'), mime_type: 'audio/wav', phone_line_id: lineId });
    expect(fromBase64.voice_note_id).toMatch(/^vn_/);
    await expect(client.voiceNotes.stage({ mime_type: 'audio/wav' } as never)).rejects.toThrow(TypeError);

    const conversationLine = (await client.messages.send({ phone: PHONE, body: 'voice next' })).phone_line_id;
    const staged = conversationLine === lineId ? fromFile : await client.voiceNotes.stage({ file, mime_type: 'audio/wav', phone_line_id: conversationLine! });
    const sent = await client.messages.send({ phone: PHONE, phone_line_id: staged.phone_line_id, voice_note: { voice_note_id: staged.voice_note_id } });
    expect(sent.status).toBe('sent');
  });
});

describe('chats', () => {
  it('creates a group, sends parts into it, adds a participant and pages its messages', async () => {
    await svc.advance(FIRST_TOUCH_GAP_MS);
    const created = await client.chats.create({ to: ['+14155550121', '+14155550122'], message: { parts: [{ type: 'text', value: 'Welcome, both' }] } });
    const chatId = created.chat.id;
    expect(chatId).toMatch(/^ch_/);

    for (const text of ['one', 'two', 'three']) {
      const posted = await client.chats.send(chatId, { message: { parts: [{ type: 'text', value: text }] } });
      expect(posted).toMatchObject({ chat_id: chatId });
    }
    const added = await client.chats.addParticipant(chatId, '+14155550123');
    expect(added.participants).toContain('+14155550123');
    // Adding twice is a no-op.
    expect((await client.chats.addParticipant(chatId, '+14155550123')).participants).toEqual(added.participants);

    const first = await client.chats.messages(chatId, { limit: 2 }).page();
    expect(first.messages).toHaveLength(2);
    expect(first.next_cursor).toBeTruthy();
    const all = await client.chats.messages(chatId, { limit: 2 }).toArray();
    expect(all.map((m) => (m.parts[0]?.type === 'text' ? m.parts[0].value : null))).toEqual(['three', 'two', 'one', 'Welcome, both']);
  });
});

describe('webhook subscriptions, dev inbox and events', () => {
  it('manages subscriptions, pulls the dev inbox, gets and replays events', async () => {
    const sub = await client.webhookSubscriptions.create({ url: DEV_INBOX_URL, events: ['message.received'] });
    expect(sub.secret).toMatch(/^whsec_/);
    expect((await client.webhookSubscriptions.list()).map((s) => s.id)).toContain(sub.id);
    expect(await client.webhookSubscriptions.get(sub.id)).toMatchObject({ id: sub.id, url: DEV_INBOX_URL });
    const rotated = await client.webhookSubscriptions.rotateSecret(sub.id, { overlap_hours: 1 });
    expect(rotated.secret).not.toBe(sub.secret);

    await svc.inbound('+14155550131', 'hi dev inbox');
    const inbox = await until('the dev inbox event', async () => {
      const page = await client.devInbox.pull({ limit: 10 });
      return page.events.length ? page : undefined;
    });
    const record = inbox.events[0]!;
    expect(record).toMatchObject({ type: 'message.received', delivery: { status: 'dev_inbox' } });
    expect((await client.devInbox.pull({ since: inbox.next_since! })).events.map((e: { id: string }) => e.id)).not.toContain(record.id);

    const got = await client.events.get(record.id);
    expect(got.payload).toMatchObject({ event_type: 'message.received' });

    expect(await client.webhookSubscriptions.delete(sub.id)).toEqual({ id: sub.id, deleted: true });
    expect((await client.webhookSubscriptions.list()).map((s) => s.id)).not.toContain(sub.id);
  });
});

describe("auth: 'hmac' where the answer is a secret", () => {
  it('creates a subscription (signed), rotates its secret and rotates the signing secret (both sent with the bearer)', async () => {
    const acct = await svc.admin<{ account: { id: string }; signing_secret: string }>('POST', '/admin/v1/accounts', { name: 'HMAC user' });
    await svc.admin('POST', '/admin/v1/tenants', { account_id: acct.account.id, slug: 'hmac-user' });
    const hmac = new Blueline({ baseUrl: svc.url, secret: acct.signing_secret, tenant: 'hmac-user', auth: 'hmac' });
    const sub = await hmac.webhookSubscriptions.create({ url: DEV_INBOX_URL, events: ['message.received'] });
    expect(sub.secret).toMatch(/^whsec_/);
    expect((await hmac.webhookSubscriptions.rotateSecret(sub.id, { overlap_hours: 1 })).secret).toMatch(/^whsec_/);
    const rotated = await hmac.signingSecret.rotate({ overlap_hours: 0 });
    const next = new Blueline({ baseUrl: svc.url, secret: rotated.signing_secret, tenant: 'hmac-user', auth: 'hmac' });
    expect(await next.signingSecret.get()).toMatchObject({ previous_secret_active: false });
    await expect(hmac.signingSecret.get()).rejects.toMatchObject({ code: 2004 });
  });
});

describe('signing secret and line health', () => {
  it("reads the secret's dates, rotates it (the old one works through the overlap) and checks a line as the operator", async () => {
    const before = await client.signingSecret.get();
    expect(before).toMatchObject({ rotated_at: null, previous_secret_active: false, shared_with_tenants: ['demo'] });
    const rotated = await client.signingSecret.rotate({ overlap_hours: 1 });
    expect(rotated.signing_secret).toMatch(/^bl_sk_/);
    const fresh = new Blueline({ ...svc.options, secret: rotated.signing_secret });
    expect(await fresh.signingSecret.get()).toMatchObject({ previous_secret_active: true, previous_secret_expires_at: rotated.previous_secret_expires_at });
    expect(await client.lines.list()).toHaveLength(2);
    const operator = new Blueline({ baseUrl: svc.url, secret: svc.demo.admin_token });
    const health = await operator.admin.lineHealth(svc.demo.phone_line_ids[0]!);
    expect(health).toMatchObject({ phone_line_id: svc.demo.phone_line_ids[0], state: 'up', service_epoch: expect.any(String) });
  });
});
