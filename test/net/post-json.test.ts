import { describe, expect, it } from 'vitest';
import { postJson, type PostJsonOptions } from '../../src/net/index.js';
import { loopbackAsPublicGuard, readAll, selfSignedCert, netError, serverTracker, startHttp, startHttps } from './helpers.js';

const track = serverTracker();

const BODY = Buffer.from(JSON.stringify({ event: 'message.received', event_id: 'evt_1' }));

function post(overrides: Partial<PostJsonOptions> & { url: string }) {
  return postJson({
    headers: { 'content-type': 'application/json', 'X-Webhook-Event-Id': 'evt_1' },
    body: BODY,
    timeoutMs: 2000,
    allowPrivateNetworks: true,
    ...overrides,
  });
}

describe('postJson', () => {
  it('refuses a loopback receiver when private networks are not allowed, without connecting', async () => {
    const s = await track(startHttp((_req, res) => res.end('ok')));
    for (const url of [s.url('/hook'), s.url('/hook', '[::1]'), `http://2130706433:${s.port}/`, `http://[::ffff:7f00:1]:${s.port}/`]) {
      const err = await netError(post({ url, allowPrivateNetworks: false, requireHttps: false }));
      expect(err.kind).toBe('forbidden_address');
      expect(err.durationMs).toBeGreaterThanOrEqual(0);
    }
    expect(s.hits).toBe(0);
  });

  it('refuses a hostname that resolves to loopback (localhost) at connect time', async () => {
    const s = await track(startHttp((_req, res) => res.end('ok')));
    const err = await netError(post({ url: s.url('/hook', 'localhost'), allowPrivateNetworks: false, requireHttps: false }));
    expect(err.kind).toBe('forbidden_address');
    expect(err.message).toMatch(/^localhost resolves to (127\.0\.0\.1|::1): loopback/);
    expect(s.hits).toBe(0);
  });

  it('checks every connection, so a name that rebinds to a private address is refused', async () => {
    // The receiver closes each connection, so the second delivery must open (and check) a new one.
    const s = await track(startHttp((_req, res) => res.writeHead(200, { connection: 'close' }).end('ok')));
    // First answer: the (test-"public") receiver. Second answer: an internal address.
    const guard = loopbackAsPublicGuard({ 'hooks.example': [['127.0.0.1'], ['192.168.0.10']] });
    const url = s.url('/hook', 'hooks.example');
    const first = await post({ url, allowPrivateNetworks: false, requireHttps: false, guard });
    expect(first.status).toBe(200);
    const err = await netError(post({ url, allowPrivateNetworks: false, requireHttps: false, guard }));
    expect(err.kind).toBe('forbidden_address');
    expect(err.message).toMatch(/192\.168\.0\.10: private/);
    expect(s.hits).toBe(1);
  });

  it('keeps connections alive between deliveries, pooled apart by address policy', async () => {
    const s = await track(startHttp((_req, res) => res.end('ok')));
    for (let i = 0; i < 3; i++) expect((await post({ url: s.url('/hook') })).status).toBe(200);
    expect(s.connections).toBe(1);
    // A guarded delivery never rides a socket opened while private networks were allowed.
    const guard = loopbackAsPublicGuard({ 'hooks.example': [['127.0.0.1']] });
    const url = s.url('/hook', 'hooks.example');
    for (let i = 0; i < 2; i++) expect((await post({ url, allowPrivateNetworks: false, requireHttps: false, guard })).status).toBe(200);
    expect(s.connections).toBe(2);
    expect(s.hits).toBe(5);
  });

  it('retries once on a fresh connection when the receiver drops a kept-alive one as it is reused', async () => {
    const perSocket = new WeakMap<object, number>();
    const s = await track(
      startHttp((req, res) => {
        const n = (perSocket.get(req.socket) ?? 0) + 1;
        perSocket.set(req.socket, n);
        if (n > 1) return void req.socket.destroy(); // an idle-timeout close racing the request
        res.end('ok');
      }),
    );
    expect((await post({ url: s.url('/hook') })).status).toBe(200);
    expect((await post({ url: s.url('/hook') })).status).toBe(200);
    expect(s.hits).toBe(3);
    expect(s.connections).toBe(2);
  });

  it('requires https unless private networks are allowed (no network needed)', async () => {
    const err = await netError(post({ url: 'http://example.com/hook', allowPrivateNetworks: false }));
    expect(err.kind).toBe('insecure_url');
    expect((await netError(post({ url: 'ftp://example.com/x' }))).kind).toBe('invalid_url');
    expect((await netError(post({ url: 'https://user:pw@example.com/x' }))).kind).toBe('invalid_url');
    expect((await netError(post({ url: '/relative' }))).kind).toBe('invalid_url');
  });

  it('posts the exact bytes and headers when private networks are allowed, and reports status, duration and a cut snippet', async () => {
    let received: { body: Buffer; headers: Record<string, unknown>; method?: string } | undefined;
    const s = await track(
      startHttp(async (req, res) => {
        received = { body: await readAll(req), headers: req.headers, method: req.method };
        res.writeHead(201, { 'content-type': 'text/plain' });
        res.end('x'.repeat(10_000));
      }),
    );
    const r = await post({ url: s.url('/hook?token=abc') });
    expect(r.status).toBe(201);
    expect(r.durationMs).toBeGreaterThanOrEqual(0);
    expect(r.durationMs).toBeLessThan(2000);
    expect(r.bodySnippet).toBe('x'.repeat(4096));
    expect(r.bodyTruncated).toBe(true);
    expect(received!.method).toBe('POST');
    expect(received!.body.equals(BODY)).toBe(true);
    expect(received!.headers['content-length']).toBe(String(BODY.length));
    expect(received!.headers['x-webhook-event-id']).toBe('evt_1');

    const small = await post({ url: s.url('/'), maxResponseBytes: 10 });
    expect(small.bodySnippet).toBe('x'.repeat(10));
  });

  it('returns a short answer whole', async () => {
    const s = await track(startHttp((_req, res) => res.writeHead(500).end('{"error":"boom"}')));
    const r = await post({ url: s.url('/') });
    expect(r).toMatchObject({ status: 500, bodySnippet: '{"error":"boom"}', bodyTruncated: false });
  });

  it('returns a 302 as a status and does not follow it', async () => {
    const target = await track(startHttp((_req, res) => res.end('should not be reached')));
    const s = await track(startHttp((_req, res) => res.writeHead(302, { location: target.url('/elsewhere') }).end()));
    const r = await post({ url: s.url('/') });
    expect(r.status).toBe(302);
    expect(target.hits).toBe(0);
  });

  it('times out within the configured time when the receiver never answers', async () => {
    const s = await track(startHttp(() => {}));
    const started = Date.now();
    const err = await netError(post({ url: s.url('/'), timeoutMs: 300 }));
    const took = Date.now() - started;
    expect(err.kind).toBe('timeout');
    expect(err.message).toMatch(/300 ms/);
    expect(took).toBeGreaterThanOrEqual(280);
    expect(took).toBeLessThan(1500);
    expect(err.durationMs).toBeGreaterThanOrEqual(280);
  });

  it('keeps the status when the body stalls past the deadline', async () => {
    const s = await track(
      startHttp((_req, res) => {
        res.writeHead(200);
        res.write('partial');
      }),
    );
    const r = await post({ url: s.url('/'), timeoutMs: 300 });
    expect(r).toMatchObject({ status: 200, bodySnippet: 'partial', bodyTruncated: true });
  });

  it('reports a connection error when the receiver resets the connection', async () => {
    const s = await track(startHttp((req) => req.socket.destroy()));
    const err = await netError(post({ url: s.url('/') }));
    expect(err.kind).toBe('connection');
    expect(err.message).toMatch(/^127\.0\.0\.1:\d+: /);
  });

  it('reports a connection error when nothing listens', async () => {
    const s = await startHttp(() => {});
    const url = s.url('/');
    await s.close();
    const err = await netError(post({ url }));
    expect(err.kind).toBe('connection');
    expect(err.message).toMatch(/ECONNREFUSED/);
  });

  it('reports an unresolvable name as a dns error', async () => {
    const guard = loopbackAsPublicGuard();
    const err = await netError(post({ url: 'https://nowhere.example/', allowPrivateNetworks: false, guard }));
    expect(err.kind).toBe('dns');
  });

  const tls = selfSignedCert();
  describe.skipIf(!tls)('over https (self-signed certificate from openssl)', () => {
    it('posts when the certificate is trusted, and fails as a connection error when it is not', async () => {
      const s = await track(startHttps(tls!, (_req, res) => res.writeHead(204).end()));
      const r = await post({ url: s.url('/', 'localhost'), ca: tls!.cert });
      expect(r.status).toBe(204);
      const err = await netError(post({ url: s.url('/', 'localhost') }));
      expect(err.kind).toBe('connection');
      expect(err.message).toMatch(/self[- ]signed/i);
    });

    it('refuses https://localhost when private networks are not allowed', async () => {
      const s = await track(startHttps(tls!, (_req, res) => res.writeHead(204).end()));
      const err = await netError(post({ url: s.url('/', 'localhost'), allowPrivateNetworks: false, ca: tls!.cert }));
      expect(err.kind).toBe('forbidden_address');
      expect(s.hits).toBe(0);
    });
  });
});
