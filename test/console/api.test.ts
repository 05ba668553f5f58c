/**
 * The API the console runs on, tested without a browser: console sessions (cookie, CSRF,
 * sign-out, throttling), the tenant's settings, the chat list, webhook endpoint changes and
 * tests, the overview's statistics, and voice notes as Ogg Opus (read back by ffprobe).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { makeWav, speechLike } from '../audio/fixtures.js';
import { cafToOggOpus, oggCrc } from '../../src/audio/ogg.js';

let t: TestApp;
let receiver: Receiver;
const ORIGIN = 'http://console.test';

beforeAll(async () => {
  t = await startTestApp('sqlite', { BLUELINE_ALLOW_PRIVATE_NETWORKS: '1' });
  receiver = await startReceiver(200);
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

async function signIn(body: object, headers: Record<string, string> = {}) {
  return t.request({ method: 'POST', url: '/api/v1/console/sessions', payload: body, headers: { host: 'console.test', origin: ORIGIN, ...headers }, remoteAddress: headers['x-ip'] ?? '10.0.0.1' });
}
const cookieOf = (res: { headers: Record<string, unknown> }) => String(res.headers['set-cookie']).split(';')[0]!;
const inject = (line: string, from: string, text: string) => t.admin('POST', `/admin/v1/lines/${line}/simulate/inbound`, { from, text });

describe('console sessions', () => {
  it('swaps slug and secret for an HttpOnly SameSite=Strict cookie that authenticates API calls', async () => {
    const res = await signIn({ kind: 'tenant', tenant: t.demo.tenant, secret: t.demo.signing_secret });
    expect(res.statusCode).toBe(201);
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(/^blueline_session=[\w-]{40,};/);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Strict');
    expect(setCookie).not.toContain('Secure'); // PUBLIC_BASE_URL is not https here
    expect(setCookie).not.toContain(t.demo.signing_secret);
    const body = res.json();
    expect(body).toMatchObject({ kind: 'tenant', tenant: { slug: t.demo.tenant } });
    const lines = await t.request({ method: 'GET', url: '/api/v1/phone-numbers', headers: { cookie: cookieOf(res) } });
    expect(lines.statusCode).toBe(200);
    expect(lines.json().phone_numbers.length).toBe(2);
  });

  it('needs the same Origin and the CSRF header for state-changing requests', async () => {
    const res = await signIn({ kind: 'tenant', tenant: t.demo.tenant, secret: t.demo.signing_secret });
    const cookie = cookieOf(res);
    const csrf = res.json().csrf_token as string;
    const patch = (headers: Record<string, string>) =>
      t.request({ method: 'PATCH', url: '/api/v1/settings', payload: { daily_first_touch_cap: 77 }, headers: { host: 'console.test', cookie, ...headers } });
    const noToken = await patch({ origin: ORIGIN });
    expect(noToken.statusCode).toBe(403);
    expect(noToken.json().error.code).toBe(2005);
    // A cross-site form post: another origin, no CSRF header (a form cannot set one).
    const crossSite = await t.request({
      method: 'POST',
      url: '/api/v1/webhook-subscriptions',
      payload: 'url=https%3A%2F%2Fevil.example%2F&events=message.received',
      headers: { host: 'console.test', cookie, origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect([403, 415]).toContain(crossSite.statusCode);
    const wrongOrigin = await patch({ origin: 'https://evil.example', 'x-csrf-token': csrf });
    expect(wrongOrigin.statusCode).toBe(403);
    const ok = await patch({ origin: ORIGIN, 'x-csrf-token': csrf });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().settings.daily_first_touch_cap).toBe(77);
  });

  it('sign-out ends the session on the server', async () => {
    const res = await signIn({ kind: 'tenant', tenant: t.demo.tenant, secret: t.demo.signing_secret });
    const cookie = cookieOf(res);
    const out = await t.request({ method: 'DELETE', url: '/api/v1/console/session', headers: { host: 'console.test', origin: ORIGIN, cookie } });
    expect(out.statusCode).toBe(200);
    expect(String(out.headers['set-cookie'])).toContain('Max-Age=0');
    // The old cookie, replayed, no longer works anywhere.
    const after = await t.request({ method: 'GET', url: '/api/v1/phone-numbers', headers: { cookie } });
    expect(after.statusCode).toBe(401);
    expect((await t.request({ method: 'GET', url: '/api/v1/console/session', headers: { cookie } })).statusCode).toBe(401);
  });

  it("signing in again ends the session the browser's cookie named (a failed sign-in ends nothing)", async () => {
    const first = cookieOf(await signIn({ kind: 'tenant', tenant: t.demo.tenant, secret: t.demo.signing_secret }));
    const refused = await signIn({ kind: 'tenant', tenant: t.demo.tenant, secret: 'bl_sk_wrong' }, { cookie: first });
    expect(refused.statusCode).toBe(401);
    expect((await t.request({ method: 'GET', url: '/api/v1/phone-numbers', headers: { cookie: first } })).statusCode).toBe(200);

    const again = await signIn({ kind: 'tenant', tenant: t.demo.tenant, secret: t.demo.signing_secret }, { cookie: first });
    expect(again.statusCode).toBe(201);
    // A copy of the old cookie no longer works; the new one does.
    expect((await t.request({ method: 'GET', url: '/api/v1/phone-numbers', headers: { cookie: first } })).statusCode).toBe(401);
    expect((await t.request({ method: 'GET', url: '/api/v1/phone-numbers', headers: { cookie: cookieOf(again) } })).statusCode).toBe(200);
  });

  it('a session lasts 12 hours', async () => {
    const res = await signIn({ kind: 'tenant', tenant: t.demo.tenant, secret: t.demo.signing_secret });
    const cookie = cookieOf(res);
    t.clock.advance(12 * 3600_000 - 60_000);
    expect((await t.request({ method: 'GET', url: '/api/v1/settings', headers: { cookie } })).statusCode).toBe(200);
    t.clock.advance(120_000);
    expect((await t.request({ method: 'GET', url: '/api/v1/settings', headers: { cookie } })).statusCode).toBe(401);
  });

  it('the operator signs in with the admin token; sessions act only as what they are', async () => {
    const op = await signIn({ kind: 'operator', admin_token: t.adminToken });
    expect(op.statusCode).toBe(201);
    expect(op.json()).toMatchObject({ kind: 'operator', tenant: null });
    const opCookie = cookieOf(op);
    expect((await t.request({ method: 'GET', url: '/admin/v1/tenants', headers: { cookie: opCookie } })).statusCode).toBe(200);
    expect((await t.request({ method: 'GET', url: '/api/v1/phone-numbers', headers: { cookie: opCookie } })).statusCode).toBe(401);
    const tenant = await signIn({ kind: 'tenant', tenant: t.demo.tenant, secret: t.demo.signing_secret });
    expect((await t.request({ method: 'GET', url: '/admin/v1/tenants', headers: { cookie: cookieOf(tenant) } })).statusCode).toBe(401);
  });

  it('ten failed sign-ins from one address in a minute make the next one 429, even with the right secret', async () => {
    const ip = { 'x-ip': '10.9.9.9' };
    for (let i = 0; i < 10; i++) {
      const bad = await signIn({ kind: 'tenant', tenant: t.demo.tenant, secret: `wrong-${i}` }, ip);
      expect(bad.statusCode).toBe(401);
    }
    const blocked = await signIn({ kind: 'tenant', tenant: t.demo.tenant, secret: t.demo.signing_secret }, ip);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().error.code).toBe(1007);
    // Another address is not affected; after the minute this one may try again.
    expect((await signIn({ kind: 'tenant', tenant: t.demo.tenant, secret: t.demo.signing_secret }, { 'x-ip': '10.9.9.10' })).statusCode).toBe(201);
    t.clock.advance(61_000);
    expect((await signIn({ kind: 'tenant', tenant: t.demo.tenant, secret: t.demo.signing_secret }, ip)).statusCode).toBe(201);
  });

  it('a sign-in posted from another site is refused', async () => {
    const res = await signIn({ kind: 'tenant', tenant: t.demo.tenant, secret: t.demo.signing_secret }, { origin: 'https://evil.example' });
    expect(res.statusCode).toBe(403);
    expect(res.headers['set-cookie']).toBeUndefined();
  });
});

describe('secure cookie', () => {
  it('is Secure when PUBLIC_BASE_URL is https', async () => {
    const s = await startTestApp('sqlite', { PUBLIC_BASE_URL: 'https://blueline.example' });
    try {
      const res = await s.request({ method: 'POST', url: '/api/v1/console/sessions', payload: { kind: 'tenant', tenant: s.demo.tenant, secret: s.demo.signing_secret }, headers: { origin: 'https://blueline.example' } });
      expect(res.statusCode).toBe(201);
      expect(String(res.headers['set-cookie'])).toContain('; Secure');
    } finally {
      await s.close();
    }
  });
});

describe('settings', () => {
  it('reads and changes timezone, window and cap; the rate limit stays the operator\'s', async () => {
    const got = await t.api('GET', '/api/v1/settings');
    expect(got.json().settings).toMatchObject({ first_touches_per_line_per_day: 30, rate_limit: { per_second: expect.any(Number) } });
    const changed = await t.api('PATCH', '/api/v1/settings', { timezone: 'America/New_York', sending_window: { start: '09:00', end: '17:30' } });
    expect(changed.statusCode).toBe(200);
    expect(changed.json().settings).toMatchObject({ timezone: 'America/New_York', sending_window: { start: '09:00', end: '17:30' } });
    expect((await t.admin('GET', `/admin/v1/tenants/${t.demo.tenant}`)).json().tenant.sending_window).toEqual({ start: '09:00', end: '17:30' });
    const badZone = await t.api('PATCH', '/api/v1/settings', { timezone: 'Mars/Olympus' });
    expect(badZone.statusCode).toBe(400);
    expect(badZone.json().error.code).toBe(1002);
    expect(badZone.json().error.message).toContain('IANA');
    const rate = await t.api('PATCH', '/api/v1/settings', { rate_limit: { per_second: 1000, burst: 1000 } });
    expect(rate.statusCode).toBe(400);
    await t.api('PATCH', '/api/v1/settings', { timezone: 'UTC', sending_window: { start: '00:00', end: '24:00' } });
  });
});

describe('chat list, stats, webhooks', () => {
  it('lists chats newest activity first with their last message, searchable by handle and paged', async () => {
    const [lineA] = t.demo.phone_line_ids;
    expect((await inject(lineA!, '+14155550111', 'first contact')).statusCode).toBe(202);
    t.clock.advance(1000);
    expect((await inject(lineA!, '+14155550122', 'second contact')).statusCode).toBe(202);
    t.clock.advance(1000);
    const list = await t.api('GET', '/api/v1/chats');
    expect(list.statusCode).toBe(200);
    const chats = list.json().chats as { chat: { handles: string[] }; last_message: { parts: { value: string }[] } }[];
    expect(chats[0]!.chat.handles).toEqual(['+14155550122']);
    expect(chats[0]!.last_message.parts[0]!.value).toBe('second contact');
    expect(chats[1]!.chat.handles).toEqual(['+14155550111']);
    const found = await t.api('GET', '/api/v1/chats?q=550111');
    expect(found.json().chats.map((c: { chat: { handles: string[] } }) => c.chat.handles[0])).toEqual(['+14155550111']);
    const p1 = (await t.api('GET', '/api/v1/chats?limit=1')).json();
    expect(p1.chats).toHaveLength(1);
    const p2 = (await t.api('GET', `/api/v1/chats?limit=1&cursor=${p1.next_cursor}`)).json();
    expect(p2.chats[0].chat.id).not.toBe(p1.chats[0].chat.id);
    expect(p2.chats[0].chat.handles).toEqual(['+14155550111']);
    expect((await t.api('GET', '/api/v1/chats?cursor=garbage')).statusCode).toBe(400);
  });

  it('counts messages per day and line', async () => {
    const stats = (await t.api('GET', '/api/v1/stats?days=30')).json();
    expect(stats.days).toBe(30);
    const received = stats.daily.reduce((s: number, d: { received: number }) => s + d.received, 0);
    expect(received).toBeGreaterThanOrEqual(2);
    expect(stats.daily[0].phone_line_id).toBe(t.demo.phone_line_ids[0]);
    expect(stats.first_touches_today.per_line).toHaveLength(2);
    expect((await t.api('GET', '/api/v1/stats?days=0')).statusCode).toBe(400);
  });

  it('changes, disables and tests a webhook endpoint', async () => {
    const sub = (await t.api('POST', '/api/v1/webhook-subscriptions', { url: receiver.url, events: ['message.received'] }, { tenant: t.demo.tenant })).json();
    expect(sub.enabled).toBe(true);
    const tested = await t.api('POST', `/api/v1/webhook-subscriptions/${sub.id}/test`);
    expect(tested.statusCode).toBe(200);
    expect(tested.json()).toMatchObject({ ok: true, status: 200 });
    const [arrived] = await receiver.waitFor(1);
    expect(JSON.parse(arrived!.body.toString())).toMatchObject({ event_type: 'message.received', event_id: tested.json().event_id, test: true });
    expect(String(arrived!.headers['x-service-signature'] ?? arrived!.headers['webhook-signature'] ?? Object.keys(arrived!.headers).join())).toMatch(/v1/);

    const disabled = await t.api('PATCH', `/api/v1/webhook-subscriptions/${sub.id}`, { enabled: false });
    expect(disabled.json().enabled).toBe(false);
    const before = receiver.received.length;
    await inject(t.demo.phone_line_ids[0]!, '+14155550133', 'while disabled');
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.received.length).toBe(before);
    const moved = await t.api('PATCH', `/api/v1/webhook-subscriptions/${sub.id}`, { url: 'http://127.0.0.1:1/other', enabled: true });
    expect(moved.json()).toMatchObject({ url: 'http://127.0.0.1:1/other', enabled: true });
    expect((await t.api('PATCH', `/api/v1/webhook-subscriptions/${sub.id}`, { url: 'ftp://x' })).statusCode).toBe(400);
    expect((await t.api('PATCH', '/api/v1/webhook-subscriptions/sub_nope', { enabled: true })).statusCode).toBe(404);
  });
});

const hasFfprobe = (() => {
  try {
    execFileSync('ffprobe', ['-version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('voice notes as Ogg Opus', () => {
  it.skipIf(!hasFfprobe)('rewraps a staged note so an independent decoder reads the right duration', async () => {
    const seconds = 2.5;
    const wav = makeWav(Math.round(seconds * 16000), speechLike(16000), { sampleRate: 16000, channels: 1, encoding: 'pcm16' });
    const staged = await t.api('POST', '/api/v1/voice-notes', { audio_base64: wav.toString('base64'), mime_type: 'audio/wav', phone_line_id: t.demo.phone_line_ids[0] });
    expect(staged.statusCode).toBe(200);
    const id = staged.json().voice_note_id as string;
    const res = await t.api('GET', `/api/v1/voice-notes/${id}/audio.ogg`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('audio/ogg');
    const ogg = res.rawPayload;
    expect(ogg.subarray(0, 4).toString()).toBe('OggS');
    // Every page's CRC is right (recomputed with the field zeroed).
    for (let at = 0; at < ogg.length; ) {
      const segments = ogg[at + 26]!;
      const size = 27 + segments + [...ogg.subarray(at + 27, at + 27 + segments)].reduce((s, n) => s + n, 0);
      const page = Buffer.from(ogg.subarray(at, at + size));
      const crc = page.readUInt32LE(22);
      page.writeUInt32LE(0, 22);
      expect(oggCrc(page)).toBe(crc);
      at += size;
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ogg-'));
    onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'note.ogg');
    fs.writeFileSync(file, ogg);
    const probed = JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_name,sample_rate,channels:format=duration', '-of', 'json', file]).toString());
    expect(probed.streams[0]).toMatchObject({ codec_name: 'opus', channels: 1 });
    expect(Math.abs(Number(probed.format.duration) - seconds)).toBeLessThan(0.03);
    // Decoding the whole file reports no error.
    expect(execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-f', 'null', '-'], { stdio: ['ignore', 'pipe', 'pipe'] }).toString()).toBe('');
  });

  it('is 404 for an unknown note', async () => {
    const res = await t.api('GET', '/api/v1/voice-notes/vn_nope/audio.ogg');
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe(5001);
  });

  it('refuses a CAF without Opus', () => {
    expect(() => cafToOggOpus(Buffer.from('not a caf'))).toThrow();
  });
});
