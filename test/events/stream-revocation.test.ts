/**
 * An open event stream stops as soon as its access is taken away: the tenant suspended, the
 * signing secret it was opened with (bearer or HMAC) rotated away with overlap 0 or past its
 * overlap (test clock), its console session ended. It ends with `event: close` (reason
 * access_revoked) before sending anything recorded a second later (at its next poll at the
 * latest), instead of streaming on for up to 60 s; a
 * rotation with an overlap leaves it streaming. With PostgreSQL, a change made through another
 * process ends it too.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest, startTestApp, type TestApp } from '../support/app.js';
import { prepareSandbox } from '../support/messaging.js';
import { STORE_KINDS } from '../support/stores.js';

// Streams live far longer than any test waits; polls are frequent, so an ended access is seen at once.
const ENV = { BLUELINE_SSE_MAX_MS: '120000', BLUELINE_SSE_HEARTBEAT_MS: '60000', BLUELINE_SSE_POLL_MS: '50' };
const WAIT_MS = 10_000;
const ORIGIN = 'http://console.test';

interface Frame {
  id?: string;
  event?: string;
  data?: string;
}

interface OpenStream {
  status: number;
  frames: Frame[];
  /** Resolves once the server ended the response. */
  ended: Promise<void>;
  isEnded(): boolean;
  texts(): string[];
  close(): Frame | undefined;
  destroy(): void;
}

function openStream(base: string, headers: Record<string, string>): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}/api/v1/events/stream`, { headers: { 'x-service-tenant': 'demo', ...headers } }, (res) => {
      const frames: Frame[] = [];
      let buf = '';
      let done = false;
      const ended = new Promise<void>((r) => res.on('end', () => ((done = true), r())));
      res.on('data', (d) => {
        buf += d.toString();
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const f: Frame = {};
          for (const line of buf.slice(0, i).split('\n')) {
            const [k, ...v] = line.split(':');
            if (k === 'id' || k === 'event' || k === 'data') f[k] = v.join(':').trim();
          }
          buf = buf.slice(i + 2);
          frames.push(f);
        }
      });
      resolve({
        status: res.statusCode!,
        frames,
        ended,
        isEnded: () => done,
        texts: () => frames.filter((f) => f.event === 'message.received').map((f) => JSON.parse(f.data!).payload.text as string),
        close: () => frames.find((f) => f.event === 'close'),
        destroy: () => req.destroy(),
      });
    });
    req.on('error', reject);
  });
}

/** Waits (bounded) until `done`; the caller then asserts what it expected. */
async function until(done: () => boolean, ms = WAIT_MS): Promise<void> {
  const start = Date.now();
  while (!done() && Date.now() - start < ms) await new Promise((r) => setTimeout(r, 10));
}

describe.each(STORE_KINDS)('an open event stream when access is taken away (%s)', (kind) => {
  let t: TestApp;
  let base: string;
  let accountId: string;
  const open: OpenStream[] = [];
  beforeAll(async () => {
    t = await startTestApp(kind, ENV);
    await prepareSandbox(t);
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    accountId = (await t.api('GET', '/api/v1/signing-secret')).json().signing_secret.account_id;
  });
  afterAll(async () => {
    for (const s of open) s.destroy();
    await t?.close();
  });

  let sent = 0;
  const inbound = (text: string) => t.admin('POST', `/admin/v1/lines/${t.demo.phone_line_ids[0]}/simulate/inbound`, { from: `+1415555${String(2000 + sent++)}`, text });
  async function stream(headers: Record<string, string>, at = base) {
    const s = await openStream(at, headers);
    open.push(s);
    expect(s.status).toBe(200);
    // Live: an event recorded now arrives.
    const text = `hello ${sent}`;
    await inbound(text).then((r) => expect(r.statusCode).toBe(202));
    await until(() => s.texts().includes(text));
    expect(s.texts()).toContain(text);
    return s;
  }
  /**
   * The stream ended with access_revoked, and nothing recorded after the change reached it once
   * its last check is a second old (a wake-up within that second goes by it, as a request goes by
   * its cached credentials): the clocks of the processes serving it are moved past that.
   */
  async function revoked(s: OpenStream, message: RegExp, clocks: TestApp['clock'][] = [t.clock]) {
    for (const c of clocks) c.advance(1_000);
    const after = `after ${sent}`;
    await inbound(after);
    await until(() => s.isEnded() || s.texts().includes(after));
    expect(s.texts()).not.toContain(after);
    expect(s.isEnded()).toBe(true);
    const close = JSON.parse(s.close()!.data!);
    expect(close).toMatchObject({ reason: 'access_revoked' });
    expect(close.message).toMatch(message);
    expect(close.last_event_id).toBe(s.frames.filter((f) => f.event === 'message.received').at(-1)!.id);
    expect(Date.parse(close.reconnect_with_since)).not.toBeNaN();
  }
  const bearer = () => ({ authorization: `Bearer ${t.demo.signing_secret}` });

  it('a suspension ends it', async () => {
    const s = await stream(bearer());
    expect((await t.admin('PATCH', '/admin/v1/tenants/demo', { status: 'suspended' })).statusCode).toBe(200);
    try {
      await revoked(s, /suspended/);
    } finally {
      expect((await t.admin('PATCH', '/admin/v1/tenants/demo', { status: 'active' })).statusCode).toBe(200);
    }
    // The same secret opens a new stream once the tenant is active again.
    await stream(bearer());
  });

  it('an account no longer verified ends it', async () => {
    const s = await stream(bearer());
    expect((await t.admin('PATCH', `/admin/v1/accounts/${accountId}`, { email_verified: false })).statusCode).toBe(200);
    try {
      await revoked(s, /not verified/);
    } finally {
      expect((await t.admin('PATCH', `/admin/v1/accounts/${accountId}`, { email_verified: true })).statusCode).toBe(200);
    }
  });

  it("the operator's rotation with overlap 0 ends streams opened with the old secret, by bearer or HMAC", async () => {
    const byBearer = await stream(bearer());
    const byHmac = await stream({ 'x-service-signature': signRequest(t.demo.signing_secret, '') });
    const res = await t.admin('POST', `/admin/v1/accounts/${accountId}/rotate-secret`, { overlap_hours: 0 });
    expect(res.statusCode).toBe(200);
    t.demo.signing_secret = res.json().signing_secret;
    await revoked(byBearer, /signing secret/);
    await revoked(byHmac, /signing secret/);
    // The new secret streams.
    await stream(bearer());
  });

  it('a rotation with an overlap leaves it streaming until the overlap ends (test clock)', async () => {
    const s = await stream(bearer());
    const res = await t.api('POST', '/api/v1/signing-secret/rotate', { overlap_hours: 1 });
    expect(res.statusCode).toBe(200);
    t.demo.signing_secret = res.json().signing_secret;
    const during = `during overlap ${sent}`;
    await inbound(during);
    await until(() => s.texts().includes(during));
    expect(s.texts()).toContain(during);
    expect(s.isEnded()).toBe(false);
    t.clock.advance(3600_000 + 1000);
    await revoked(s, /signing secret/);
  });

  it("a console session's stream ends with the session: at sign-out, and at a rotation with overlap 0", async () => {
    const signIn = async () => {
      const res = await t.request({
        method: 'POST',
        url: '/api/v1/console/sessions',
        payload: { kind: 'tenant', tenant: 'demo', secret: t.demo.signing_secret },
        headers: { host: 'console.test', origin: ORIGIN },
      });
      expect(res.statusCode).toBe(201);
      return String(res.headers['set-cookie']).split(';')[0]!;
    };
    const signedOut = await signIn();
    const s1 = await stream({ cookie: signedOut });
    await t.request({ method: 'DELETE', url: '/api/v1/console/session', headers: { cookie: signedOut, host: 'console.test', origin: ORIGIN } });
    await revoked(s1, /session has ended/);

    const s2 = await stream({ cookie: await signIn() });
    const res = await t.admin('POST', `/admin/v1/accounts/${accountId}/rotate-secret`, { overlap_hours: 0 });
    t.demo.signing_secret = res.json().signing_secret;
    await revoked(s2, /session has ended/);
  });

  it.runIf(kind === 'postgres')('a suspension made through another process ends it', async () => {
    const other = await startTestApp(kind, ENV, { join: t });
    try {
      other.clock.advance(t.clock.offsetMs());
      const otherBase = await other.app.listen({ port: 0, host: '127.0.0.1' });
      // The stream is served by the other process; the suspension goes through this one.
      const s = await stream(bearer(), otherBase);
      expect((await t.admin('PATCH', '/admin/v1/tenants/demo', { status: 'suspended' })).statusCode).toBe(200);
      try {
        await revoked(s, /suspended/, [t.clock, other.clock]);
      } finally {
        expect((await t.admin('PATCH', '/admin/v1/tenants/demo', { status: 'active' })).statusCode).toBe(200);
      }
    } finally {
      await other.close();
    }
  });
});
