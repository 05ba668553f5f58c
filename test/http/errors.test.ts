import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest, startTestApp, type TestApp } from '../support/app.js';
import Fastify from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import net from 'node:net';
import { createTestStore } from '../support/stores.js';
import { healthLiveRoute } from '../../src/http/routes/health/live.js';
import { healthReadyRoute } from '../../src/http/routes/health/ready.js';
import { webhookTokenFor } from '../../src/drivers/bluebubbles/index.js';
import { HOOK_SECRET } from '../support/app.js';
import { createHmac } from 'node:crypto';

function signBytes(secret: string, body: Buffer): string {
  const ts = Math.floor(Date.now() / 1000);
  return `v1,${ts},${createHmac('sha256', secret).update(Buffer.concat([Buffer.from(`${ts}.`), body])).digest('hex')}`;
}

describe('error envelope and bad input', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(async () => t.close());

  const adminPost = (payload: string | Buffer, headers: Record<string, string> = {}) =>
    t.request({
      method: 'POST',
      url: '/admin/v1/accounts',
      payload,
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/json', ...headers },
    });

  it('answers invalid JSON with 1004 — after authentication', async () => {
    const res = await adminPost('{"name": ');
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 1004, status: 400, retryable: false });
    // The message never quotes the body back (it may hold a secret).
    const quoted = await adminPost('{"to": hunter2secret}');
    expect(quoted.json().error.code).toBe(1004);
    expect(quoted.body).not.toContain('hunter2');
    const anonymous = await t.request({ method: 'POST', url: '/admin/v1/accounts', payload: '{"name": ', headers: { 'content-type': 'application/json' } });
    expect(anonymous.json().error.code).toBe(2012);
  });

  it('refuses a JSON body that is not valid UTF-8 with 1004, instead of sending U+FFFD', async () => {
    const bytes = Buffer.concat([Buffer.from('{"phone":"+14155550100","body":"hi '), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const headers = { authorization: `Bearer ${t.demo.signing_secret}`, 'content-type': 'application/json' };
    const send = await t.request({ method: 'POST', url: '/api/v1/send', payload: bytes, headers });
    expect(send.statusCode).toBe(400);
    expect(send.json()).toMatchObject({ status: 'failed', code: 1004, reason: 'request body is not valid JSON: it is not valid UTF-8' });
    const chat = await t.request({ method: 'POST', url: '/api/v1/chats', payload: bytes, headers });
    expect(chat.json().error).toMatchObject({ status: 400, code: 1004 });
    // HMAC is over the bytes as sent, so a signed request gets the same answer; no credentials, 2012.
    const signed = await t.request({
      method: 'POST', url: '/api/v1/chats', payload: bytes,
      headers: { 'content-type': 'application/json', 'x-service-tenant': 'demo', 'x-service-signature': signBytes(t.demo.signing_secret, bytes) },
    });
    expect(signed.json().error.code).toBe(1004);
    const anonymous = await t.request({ method: 'POST', url: '/api/v1/chats', payload: bytes, headers: { 'content-type': 'application/json' } });
    expect(anonymous.json().error.code).toBe(2012);
  });

  it('rejects unknown fields, wrong types and missing fields with 1002/1002/1001', async () => {
    const unknown = await adminPost(JSON.stringify({ name: 'x', nmae: 'typo' }));
    expect(unknown.json().error).toMatchObject({ code: 1002, message: "unknown body field 'nmae'" });
    const wrongType = await adminPost(JSON.stringify({ name: 42 }));
    expect(wrongType.json().error).toMatchObject({ code: 1002, message: "body field 'name' must be string" });
    const notObject = await adminPost('[1,2]');
    expect(notObject.json().error.code).toBe(1002);
    const missing = await adminPost('{}');
    expect(missing.json().error).toMatchObject({ code: 1001, message: "missing required body field 'name'" });
    const nested = await t.admin('PATCH', '/admin/v1/tenants/demo', { rate_limit: { per_second: 'fast', burst: 1 } });
    expect(nested.json().error).toMatchObject({ code: 1002, message: "body field 'rate_limit.per_second' must be number" });
  });

  it('says what a union or enum field accepts, and which attachment entry is wrong', async () => {
    const status = await t.api('GET', '/api/v1/events?status=bogus', undefined, { tenant: 'demo' });
    expect(status.json().error.message).toBe(`query field 'status' must be one of "pending", "delivered", "failed", "dev_inbox"`);
    const part = await t.api('POST', '/api/v1/chats', { to: ['+14155550100'], message: { parts: [{ type: 'bogus', value: 'hi' }] } });
    expect(part.json().error).toMatchObject({ code: 1002, message: expect.stringContaining(`'message.parts.0.type' must be one of "text", "media"`) });
    // The object form of an attachment entry with a typo: the typo, not "must be string".
    const typo = await t.api('POST', '/api/v1/send', { phone: '+14155550100', attachments: ['att_a', { attachment_id: 'att_x', extra: 1 }] });
    expect(typo.json()).toMatchObject({ status: 'failed', code: 1002, reason: "unknown body field 'attachments.1.extra'", attachment_index: 1 });
    const wrongType = await t.api('POST', '/api/v1/send', { phone: '+14155550100', attachments: [5] });
    expect(wrongType.json()).toMatchObject({ code: 1002, reason: "body field 'attachments.0' must be string or object", attachment_index: 0 });
  });

  it("answers a schema failure with the spec's own code where it has one, and a pattern failure in words", async () => {
    // The upload types are an enum in the contract, yet an unlisted one is 5003 (not 1002), in any case.
    const exe = await t.api('POST', '/api/v1/attachments', { filename: 'x.exe', content_type: 'application/x-msdownload', size_bytes: 10 });
    expect(exe.json().error).toMatchObject({ code: 5003, message: expect.stringContaining('"image/png"') });
    expect((await t.api('POST', '/api/v1/attachments', { filename: 'x.png', content_type: 'IMAGE/PNG', size_bytes: 10 })).statusCode).toBe(200);
    expect((await t.api('POST', '/api/v1/attachments', { filename: 'x.png', content_type: 42, size_bytes: 10 })).json().error.code).toBe(1002);
    const huge = await t.api('POST', '/api/v1/attachments', { filename: 'x.mp4', content_type: 'video/mp4', size_bytes: 100 * 1024 * 1024 + 1 });
    expect(huge.json().error.code).toBe(5002);
    expect((await t.api('POST', '/api/v1/attachments', { filename: 'x.mp4', content_type: 'video/mp4', size_bytes: 0 })).json().error.code).toBe(1002);
    const slug = await t.admin('POST', '/admin/v1/tenants', { account_id: 'acct_x', slug: 'Bad Slug' });
    expect(slug.json().error).toMatchObject({ code: 1002, message: "body field 'slug' must be 1-63 lowercase letters, digits and inner dashes" });
  });

  it('answers a 10 MB body on a JSON route with a 4xx envelope and keeps serving', async () => {
    const big = Buffer.alloc(10 * 1024 * 1024, 'a');
    const res = await adminPost(big);
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ success: false, error: { code: 1002, status: 413 } });
    expect(res.headers['x-trace-id']).toBeTruthy();
    expect((await t.api('GET', '/api/v1/phone-numbers')).statusCode).toBe(200);
  });

  it('answers a non-JSON content type with a 415 envelope', async () => {
    const res = await adminPost('name=x', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.statusCode).toBe(415);
    expect(res.json().error.code).toBe(1002);
  });

  it('answers an over-long path parameter in the envelope: 1002 from the route schema, with X-Trace-ID', async () => {
    for (const id of ['e'.repeat(101), 'e'.repeat(1500)]) {
      const res = await t.api('GET', `/api/v1/events/${id}`, undefined, { tenant: 'demo' });
      expect(res.statusCode, `${id.length} characters`).toBe(400);
      expect(res.json()).toEqual({ success: false, error: { status: 400, code: 1002, message: expect.any(String), retryable: false }, trace_id: res.headers['x-trace-id'] });
      expect(res.headers['x-trace-id']).toMatch(/^tr_/);
    }
    // Under the router's limit the id reaches the route: an unknown event is 2011, not a framework 414.
    const unknown = await t.api('GET', `/api/v1/webhook-subscriptions/${'s'.repeat(100)}`);
    expect(unknown.json().error.code).toBe(2011);
  });

  it('answers a malformed percent-encoding in the path with a 1002 envelope and X-Trace-ID', async () => {
    const res = await t.api('GET', '/api/v1/events/%E0%A4%A', undefined, { tenant: 'demo' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ success: false, error: { status: 400, code: 1002, message: expect.any(String), retryable: false }, trace_id: res.headers['x-trace-id'] });
    expect(res.headers['x-trace-id']).toMatch(/^tr_/);
    expect(res.json().error.message).not.toContain('FST_');
  });

  it('answers requests the HTTP parser refuses in the envelope, with X-Trace-ID', async () => {
    const address = new URL(await t.app.listen({ port: 0, host: '127.0.0.1' }));
    const raw = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(address.port), address.hostname, () => socket.write(request));
        let got = '';
        socket.on('data', (d) => (got += d.toString()));
        socket.on('end', () => resolve(got));
        socket.on('error', reject);
      });
    try {
      const cases: [string, number][] = [
        ['GET /healthz HTTP/1.1\r\nHost: x\r\nbad header line\r\n\r\n', 400],
        ['POST /api/v1/send HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', 400],
        [`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
      ];
      for (const [request, status] of cases) {
        const answer = await raw(request);
        const [head, body] = answer.split('\r\n\r\n');
        expect(head!.split('\r\n')[0]).toBe(`HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}`);
        const trace = /x-trace-id: (tr_[0-9a-f]{24})/i.exec(head!)?.[1];
        expect(trace).toBeDefined();
        expect(JSON.parse(body!)).toEqual({ success: false, error: { status, code: 1002, message: expect.any(String), retryable: false }, trace_id: trace });
        // Logged as a request line, like any other refused request.
        const line = t.logs.map((l) => JSON.parse(l)).find((l) => l.trace_id === trace);
        expect(line, `${status} logged`).toMatchObject({ msg: 'request', status });
      }
      // An unrouted method with a body (QUERY) on a known path: 405, not a Content-Type complaint.
      const query = await raw('QUERY /api/v1/phone-numbers HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      expect(query.split('\r\n')[0]).toBe('HTTP/1.1 405 Method Not Allowed');
      expect(query).toMatch(/\r\nallow: GET, HEAD\r\n/i);
    } finally {
      await t.app.server.close();
    }
  });

  it('answers unknown routes with a 404 envelope carrying the trace id', async () => {
    const res = await t.request({ method: 'GET', url: '/no/such/thing?x=1' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      success: false,
      error: { status: 404, code: 2011, message: 'no route for GET /no/such/thing', retryable: false },
      trace_id: res.headers['x-trace-id'],
    });
  });

  it('answers a wrong method on a known path with 405 and Allow, authenticated or not', async () => {
    const cases: [string, string, string[]][] = [
      ['DELETE', '/api/v1/phone-numbers', ['GET', 'HEAD']],
      ['PUT', '/api/v1/chats/ch_0123/messages', ['GET', 'HEAD', 'POST']],
      ['GET', '/api/v1/send', ['POST']],
      ['POST', '/healthz', ['GET', 'HEAD']],
    ];
    for (const [method, url, allowed] of cases) {
      for (const res of [await t.api(method, url), await t.request({ method: method as 'GET', url })]) {
        expect(res.statusCode, `${method} ${url}`).toBe(405);
        expect(res.headers.allow).toBe(allowed.join(', '));
        expect(res.json()).toEqual({
          success: false,
          error: { status: 405, code: 2011, message: `${method} is not allowed on this path; it takes ${allowed.join(', ')}`, retryable: false, allowed_methods: allowed },
          trace_id: res.headers['x-trace-id'],
        });
      }
    }
    // A path no route has stays 404.
    expect((await t.api('DELETE', '/api/v1/no-such-thing')).statusCode).toBe(404);
  });

  it('cuts a long tenant header quoted back in a 404', async () => {
    const slug = 'x'.repeat(5_000);
    const res = await t.api('GET', '/api/v1/phone-numbers', undefined, { tenant: slug });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.message).toBe(`tenant "${'x'.repeat(63)}…" not found`);
  });

  it('puts X-Trace-ID on successes, distinct per request', async () => {
    const a = await t.request({ method: 'GET', url: '/healthz' });
    const b = await t.request({ method: 'GET', url: '/healthz' });
    expect(a.headers['x-trace-id']).toMatch(/^tr_/);
    expect(a.headers['x-trace-id']).not.toBe(b.headers['x-trace-id']);
  });

  it('serves OpenAPI 3.1 generated from the route schemas, and a docs page', async () => {
    const spec = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
    expect(spec.openapi).toBe('3.1.0');
    expect(spec.paths['/api/v1/phone-numbers'].get.responses['200']).toBeTruthy();
    expect(spec.paths['/admin/v1/tenants'].post.requestBody).toBeTruthy();
    const docs = await t.request({ method: 'GET', url: '/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toContain('text/html');
  });

  it('reports liveness and store readiness', async () => {
    expect((await t.request({ method: 'GET', url: '/healthz' })).json()).toEqual({ ok: true });
    expect((await t.request({ method: 'GET', url: '/readyz' })).json()).toEqual({ ok: true, store: 'sqlite' });
  });

  it('keeps secrets out of the logs, whatever the request did', async () => {
    const ts = Math.floor(Date.now() / 1000);
    await t.api('GET', '/api/v1/phone-numbers');
    await t.api('GET', '/api/v1/phone-numbers', undefined, { secret: t.demo.signing_secret + 'x' });
    await t.request({ method: 'GET', url: '/api/v1/phone-numbers', headers: { 'x-service-signature': signRequest(t.demo.signing_secret, '', ts), 'x-service-tenant': 'demo' } });
    const created = (await t.admin('POST', '/admin/v1/accounts', { name: 'Logged' })).json();
    await t.admin('POST', '/admin/v1/lines', { tenant: 'demo', phone_number: '+14155550777', driver: 'bluebubbles', driver_config: { password: 'bb-secret-pw' } });
    await t.admin('POST', `/admin/v1/accounts/${created.account.id}/rotate-secret`);
    const logs = t.logs.join('');
    expect(logs).toContain('"path":"/api/v1/phone-numbers","status":401');
    for (const secret of [t.demo.signing_secret, created.signing_secret, t.adminToken, 'bb-secret-pw']) {
      expect(logs).not.toContain(secret);
    }
  });
});

describe('unexpected failures', () => {
  it('answers 3001 without internals when the store fails, and says not ready', async () => {
    const t = await startTestApp('sqlite');
    await t.testStore.store.close();
    const res = await t.api('GET', '/api/v1/phone-numbers');
    expect(res.statusCode).toBe(500);
    expect(res.json().error).toEqual({ status: 500, code: 3001, message: 'internal error; quote the trace_id to support', retryable: true });
    expect(res.body).not.toMatch(/sqlite|select|kysely|Error:/i);
    expect(t.logs.join('')).toContain(res.json().trace_id);
    expect((await t.request({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);
    await t.app.close();
  });
});

describe('request log lines', () => {
  const requestLines = (t: TestApp) =>
    t.logs.map((l) => JSON.parse(l) as { msg: string; status?: number; path?: string; trace_id?: string }).filter((l) => l.msg === 'request');

  it('by default logs failed requests only: auth failures, bad input and unknown routes', async () => {
    const t = await startTestApp('sqlite', { BLUELINE_LOG_REQUESTS: 'errors' });
    try {
      expect((await t.api('GET', '/api/v1/phone-numbers')).statusCode).toBe(200);
      expect(requestLines(t)).toEqual([]);
      const denied = await t.api('GET', '/api/v1/phone-numbers', undefined, { secret: 'wrong' });
      const missing = await t.api('GET', '/api/v1/no-such-route');
      const bad = await t.api('POST', '/api/v1/send', { phone: 'not a phone', body: 'hi' });
      expect([denied.statusCode, missing.statusCode, bad.statusCode]).toEqual([401, 404, 400]);
      expect(requestLines(t).map((l) => [l.status, l.path, l.trace_id])).toEqual([
        [401, '/api/v1/phone-numbers', denied.headers['x-trace-id']],
        [404, '/api/v1/no-such-route', missing.headers['x-trace-id']],
        [400, '/api/v1/send', bad.headers['x-trace-id']],
      ]);
    } finally {
      await t.close();
    }
  });

  it("names the tenant of a request refused for the tenant's state (suspended, unverified account), though it never got a principal", async () => {
    const t = await startTestApp('sqlite', { BLUELINE_LOG_REQUESTS: 'errors' });
    try {
      const a = (await t.admin('POST', '/admin/v1/accounts', { name: 'Paused Co' })).json();
      expect((await t.admin('POST', '/admin/v1/tenants', { account_id: a.account.id, slug: 'paused-co' })).statusCode).toBe(201);
      expect((await t.admin('PATCH', '/admin/v1/tenants/paused-co', { status: 'suspended' })).statusCode).toBe(200);
      const suspended = await t.api('GET', '/api/v1/phone-numbers', undefined, { secret: a.signing_secret });
      expect(suspended.json().error.code).toBe(2005);
      await t.admin('PATCH', '/admin/v1/tenants/paused-co', { status: 'active' });
      await t.admin('PATCH', `/admin/v1/accounts/${a.account.id}`, { email_verified: false });
      const unverified = await t.api('GET', '/api/v1/phone-numbers', undefined, { secret: a.signing_secret });
      expect(unverified.json().error.code).toBe(2007);
      const lines = t.logs.map((l) => JSON.parse(l) as { msg: string; status?: number; tenant?: string; trace_id?: string }).filter((l) => l.msg === 'request');
      expect(lines.map((l) => [l.status, l.tenant, l.trace_id])).toEqual([
        [403, 'paused-co', suspended.headers['x-trace-id']],
        [403, 'paused-co', unverified.headers['x-trace-id']],
      ]);
    } finally {
      await t.close();
    }
  });

  // These answer some failures themselves, not through the error handler: a wrong BlueBubbles
  // webhook token (a misconfigured Mac, or someone probing tokens) and a HubSpot request whose
  // signature fails were not logged at all by default.
  it('by default also logs the failures routes answer themselves, once each', async () => {
    const t = await startTestApp('sqlite', { BLUELINE_LOG_REQUESTS: 'errors', HUBSPOT_CLIENT_ID: 'client-id', HUBSPOT_CLIENT_SECRET: 'client-secret-for-tests' });
    try {
      const json = { 'content-type': 'application/json' };
      const wrongToken = await t.request({ method: 'POST', url: `/hooks/bluebubbles/line_x/${'a'.repeat(43)}`, payload: '{}', headers: json });
      const unsigned = await t.request({ method: 'GET', url: '/crm/hubspot/card?portalId=1&associatedObjectId=2&associatedObjectType=CONTACT' });
      const badJson = await t.request({ method: 'POST', url: `/hooks/bluebubbles/line_x/${webhookTokenFor(HOOK_SECRET, 'line_x')}`, payload: '{"type": ', headers: json });
      expect([wrongToken.statusCode, unsigned.statusCode, badJson.statusCode]).toEqual([401, 401, 400]);
      expect(requestLines(t).map((l) => [l.status, l.path, l.trace_id])).toEqual([
        [401, '/hooks/bluebubbles/line_x/[redacted]', wrongToken.headers['x-trace-id']],
        [401, '/crm/hubspot/card', unsigned.headers['x-trace-id']],
        [400, '/hooks/bluebubbles/line_x/[redacted]', badJson.headers['x-trace-id']],
      ]);
    } finally {
      await t.close();
    }
  });

  it.each(['errors', 'all'])('never logs the BlueBubbles webhook token (BLUELINE_LOG_REQUESTS=%s)', async (mode) => {
    const t = await startTestApp('sqlite', { BLUELINE_LOG_REQUESTS: mode });
    try {
      const lineId = 'line_logged';
      const token = webhookTokenFor(HOOK_SECRET, lineId);
      const hook = `/hooks/bluebubbles/${lineId}/${token}`;
      const json = { 'content-type': 'application/json' };
      const badJson = await t.request({ method: 'POST', url: hook, payload: '{"type": ', headers: json });
      const tooBig = await t.request({ method: 'POST', url: hook, payload: Buffer.alloc(2 * 1024 * 1024, 'a'), headers: json });
      const wrongMethod = await t.request({ method: 'GET', url: `${hook}?x=1` });
      const trailingSlash = await t.request({ method: 'POST', url: `/HOOKS/bluebubbles/${lineId}/${token}/`, payload: '{}', headers: json });
      const badUrl = await t.request({ method: 'POST', url: `/hooks/bluebubbles/%E0%A4%A/${token}`, payload: '{}', headers: json });
      expect([badJson.statusCode, tooBig.statusCode, wrongMethod.statusCode, trailingSlash.statusCode, badUrl.statusCode]).toEqual([400, 413, 405, 404, 400]);
      expect(badJson.json().error.code).toBe(1004);
      // fastify's request serializer (its own request lines, or any `{ req }` logged) redacts too.
      t.app.log.info({ req: { method: 'POST', url: hook } }, 'a request, logged whole');
      const logs = t.logs.join('');
      expect(logs).not.toContain(token);
      expect(requestLines(t).map((l) => [l.status, l.path])).toEqual([
        [400, `/hooks/bluebubbles/${lineId}/[redacted]`],
        [413, `/hooks/bluebubbles/${lineId}/[redacted]`],
        [405, `/hooks/bluebubbles/${lineId}/[redacted]`],
        [404, `/HOOKS/bluebubbles/${lineId}/[redacted]/`],
        [400, '/hooks/bluebubbles/%E0%A4%A/[redacted]'],
      ]);
      expect(logs).toContain(`"url":"/hooks/bluebubbles/${lineId}/[redacted]"`);
      // Other paths are logged as they are.
      await t.api('GET', '/api/v1/no-such-route/x');
      expect(requestLines(t).at(-1)!.path).toBe('/api/v1/no-such-route/x');
    } finally {
      await t.close();
    }
  });

  it('logs every request when asked to', async () => {
    const t = await startTestApp('sqlite', { BLUELINE_LOG_REQUESTS: 'all' });
    try {
      await t.api('GET', '/api/v1/phone-numbers');
      expect(requestLines(t).map((l) => l.status)).toEqual([200]);
    } finally {
      await t.close();
    }
  });
});

describe('readiness', () => {
  it('answers /readyz 503 "starting" until start-up is over, then 200', async () => {
    const ts = await createTestStore('sqlite');
    const app = Fastify().withTypeProvider<TypeBoxTypeProvider>();
    let started = false;
    healthLiveRoute(app);
    healthReadyRoute(app, { store: ts.store, isStarted: () => started });
    try {
      const starting = await app.inject({ method: 'GET', url: '/readyz' });
      expect(starting.statusCode).toBe(503);
      expect(starting.json()).toEqual({ ok: false, store: 'sqlite', error: 'starting' });
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      started = true;
      expect((await app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ ok: true, store: 'sqlite' });
    } finally {
      await app.close();
      await ts.cleanup();
    }
  });
});
