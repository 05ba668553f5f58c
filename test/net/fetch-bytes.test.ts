import { describe, expect, it } from 'vitest';
import { fetchBytes, type FetchBytesOptions } from '../../src/net/index.js';
import { loopbackAsPublicGuard, selfSignedCert, netError, serverTracker, startHttp, startHttps } from './helpers.js';

const track = serverTracker();

/** Plain http is only reachable with requireHttps: false, which only tests set. */
function fetchHttp(overrides: Partial<FetchBytesOptions> & { url: string }) {
  return fetchBytes({ timeoutMs: 2000, maxBytes: 1024, allowPrivateNetworks: true, requireHttps: false, ...overrides });
}

describe('fetchBytes', () => {
  it('returns the body bytes, exactly maxBytes included', async () => {
    const payload = Buffer.alloc(1024, 7);
    const s = await track(startHttp((_req, res) => res.end(payload)));
    const got = await fetchHttp({ url: s.url('/a.opus') });
    expect(got.equals(payload)).toBe(true);
  });

  it('requires https by default, before any connection', async () => {
    const s = await track(startHttp((_req, res) => res.end('x')));
    const err = await netError(fetchBytes({ url: s.url('/'), timeoutMs: 1000, maxBytes: 10, allowPrivateNetworks: true }));
    expect(err.kind).toBe('insecure_url');
    expect(s.hits).toBe(0);
  });

  it('aborts a streamed body once it passes maxBytes, without reading the rest', async () => {
    let written = 0;
    let serverSawAbort = false;
    const s = await track(
      startHttp((_req, res) => {
        // Chunked, no content-length: only counting the stream can catch it.
        const chunk = Buffer.alloc(16 * 1024, 1);
        const pump = () => {
          while (written < 64 * 1024 * 1024) {
            written += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        res.on('close', () => (serverSawAbort = !res.writableFinished));
        pump();
      }),
    );
    const err = await netError(fetchHttp({ url: s.url('/big'), maxBytes: 100 * 1024 }));
    expect(err.kind).toBe('too_large');
    await new Promise((r) => setTimeout(r, 50));
    expect(serverSawAbort).toBe(true);
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  it('refuses at once when content-length already says too large', async () => {
    const s = await track(startHttp((_req, res) => res.writeHead(200, { 'content-length': '5000' }).end(Buffer.alloc(5000))));
    const err = await netError(fetchHttp({ url: s.url('/'), maxBytes: 4999 }));
    expect(err.kind).toBe('too_large');
  });

  it('reports a non-2xx answer with its status', async () => {
    const s = await track(startHttp((_req, res) => res.writeHead(404).end('missing')));
    const err = await netError(fetchHttp({ url: s.url('/') }));
    expect(err).toMatchObject({ kind: 'http_status', status: 404 });
  });

  it('follows up to three redirects and refuses a fourth', async () => {
    const s = await track(
      startHttp((req, res) => {
        const m = /^\/hop\/(\d+)$/.exec(req.url ?? '');
        if (m && Number(m[1]) > 0) res.writeHead(302, { location: `/hop/${Number(m[1]) - 1}` }).end();
        else res.end('landed');
      }),
    );
    expect((await fetchHttp({ url: s.url('/hop/3') })).toString()).toBe('landed');
    const err = await netError(fetchHttp({ url: s.url('/hop/4') }));
    expect(err.kind).toBe('redirect');
    expect(err.message).toMatch(/more than 3 redirects/);
  });

  it('times out within the configured time', async () => {
    const s = await track(startHttp(() => {}));
    const started = Date.now();
    const err = await netError(fetchHttp({ url: s.url('/'), timeoutMs: 300 }));
    expect(err.kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('reports a body cut short as a connection error', async () => {
    const s = await track(
      startHttp((_req, res) => {
        res.writeHead(200, { 'content-length': '100' });
        res.write('only part');
        setTimeout(() => res.socket?.destroy(), 20);
      }),
    );
    expect((await netError(fetchHttp({ url: s.url('/') }))).kind).toBe('connection');
  });

  describe('with the address guard on (127.0.0.1 plays a public host)', () => {
    it('refuses a redirect to a loopback or metadata address', async () => {
      const targets = ['http://127.0.0.2/x', 'http://[::1]/x', 'http://169.254.169.254/latest/meta-data/', 'http://[::ffff:7f00:1]/'];
      for (const location of targets) {
        const s = await track(startHttp((_req, res) => res.writeHead(302, { location }).end()));
        const err = await netError(fetchHttp({ url: s.url('/'), allowPrivateNetworks: false, guard: loopbackAsPublicGuard() }));
        expect(err.kind).toBe('forbidden_address');
        expect(err.message).toMatch(/^after a redirect: /);
      }
    });

    it('refuses a redirect to a name that resolves to a private address, at connect time', async () => {
      const guard = loopbackAsPublicGuard({ 'internal.example': [['10.1.2.3']] });
      const s = await track(startHttp((_req, res) => res.writeHead(307, { location: 'http://internal.example/secret' }).end()));
      const err = await netError(fetchHttp({ url: s.url('/'), allowPrivateNetworks: false, guard }));
      expect(err.kind).toBe('forbidden_address');
      expect(err.message).toMatch(/internal\.example resolves to 10\.1\.2\.3: private/);
    });

    it('refuses localhost with the real guard', async () => {
      const s = await track(startHttp((_req, res) => res.end('x')));
      const err = await netError(fetchHttp({ url: s.url('/', 'localhost'), allowPrivateNetworks: false }));
      expect(err.kind).toBe('forbidden_address');
      expect(s.hits).toBe(0);
    });
  });

  const tls = selfSignedCert();
  describe.skipIf(!tls)('over https (self-signed certificate from openssl)', () => {
    it('fetches over https and follows an https redirect', async () => {
      const s = await track(
        startHttps(tls!, (req, res) => {
          if (req.url === '/start') res.writeHead(301, { location: '/audio' }).end();
          else res.end('opus-bytes');
        }),
      );
      const got = await fetchBytes({ url: s.url('/start', 'localhost'), timeoutMs: 2000, maxBytes: 100, allowPrivateNetworks: true, ca: tls!.cert });
      expect(got.toString()).toBe('opus-bytes');
    });

    it('refuses a redirect from https to plain http', async () => {
      const plain = await track(startHttp((_req, res) => res.end('x')));
      const s = await track(startHttps(tls!, (_req, res) => res.writeHead(302, { location: plain.url('/') }).end()));
      const err = await netError(
        fetchBytes({ url: s.url('/', 'localhost'), timeoutMs: 2000, maxBytes: 100, allowPrivateNetworks: true, ca: tls!.cert }),
      );
      expect(err.kind).toBe('insecure_url');
      expect(err.message).toMatch(/^after a redirect: /);
      expect(plain.hits).toBe(0);
    });
  });
});
