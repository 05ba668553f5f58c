/**
 * A client's credentials never leave it except on the wire: logging or serializing the client
 * (an error's context, a dumped config) shows neither the signing secret, nor an ADMIN_TOKEN
 * given as `secret`, nor a console session's CSRF token.
 */
import { createHmac } from 'node:crypto';
import util from 'node:util';
import { describe, expect, it } from 'vitest';
import { Blueline } from '@blueline/sdk';
import { operations } from '../../src/contract/index.js';

const SECRET = 'sk_live_verysecret_0123456789abcdef';
const ADMIN_TOKEN = 'admin_token_0123456789abcdef_hidden';
const CSRF = 'csrf_0123456789abcdef_hidden';

/** A fetch that answers every request with an empty line list, recording the headers sent. */
function recordingFetch() {
  const seen: { url: string; headers: Record<string, string>; body: string }[] = [];
  const fetch = (async (url: string, init: RequestInit) => {
    seen.push({ url, headers: { ...(init.headers as Record<string, string>) }, body: String(init.body ?? '') });
    return new Response(JSON.stringify({ phone_numbers: [] }), { status: 200, headers: { 'content-type': 'application/json' } });
  }) as unknown as typeof globalThis.fetch;
  return { fetch, seen };
}

/** Every way a user might print or serialize the client. */
function renderings(value: unknown): string[] {
  return [
    JSON.stringify(value) ?? '',
    util.inspect(value),
    util.inspect(value, { showHidden: true, depth: Infinity }),
    util.format('%o', value),
    util.format('%j', value),
  ];
}

describe('credentials stay out of what a client shows', () => {
  it('the signing secret (bearer and HMAC) is in no rendering of the client or its core, before and after use', async () => {
    for (const auth of ['bearer', 'hmac'] as const) {
      const { fetch } = recordingFetch();
      const client = new Blueline({ baseUrl: 'http://blueline.test', secret: SECRET, tenant: 'acme', auth, fetch });
      await client.lines.list(); // HMAC: the key is imported and cached on first use
      // Evaluating every accessor too: none gives the secret back.
      const all = [...renderings(client), ...renderings(client.core), util.inspect(client, { showHidden: true, depth: Infinity, getters: true })];
      for (const text of all) expect(text).not.toContain(SECRET);
    }
  });

  it('an ADMIN_TOKEN and a session CSRF token are not shown either', async () => {
    const { fetch } = recordingFetch();
    const admin = new Blueline({ baseUrl: 'http://blueline.test', secret: ADMIN_TOKEN, fetch });
    await admin.admin.listLines().catch(() => undefined);
    for (const text of [...renderings(admin), util.inspect(admin, { showHidden: true, depth: Infinity, getters: true })]) expect(text).not.toContain(ADMIN_TOKEN);
    const session = new Blueline({ baseUrl: 'http://blueline.test', auth: 'session', csrfToken: CSRF, fetch });
    for (const text of renderings(session)) expect(text).not.toContain(CSRF);
    // Still readable and settable where the console needs it (an accessor: \`getters: true\` would show it, as asked).
    expect(session.core.csrfToken).toBe(CSRF);
    session.core.csrfToken = 'csrf_next';
    expect(session.core.csrfToken).toBe('csrf_next');
  });

  it('the secret is still sent: as the bearer, and as the key of the HMAC signature', async () => {
    const bearer = recordingFetch();
    await new Blueline({ baseUrl: 'http://blueline.test', secret: SECRET, fetch: bearer.fetch }).lines.list();
    expect(bearer.seen[0]!.headers.authorization).toBe(`Bearer ${SECRET}`);

    const hmac = recordingFetch();
    await new Blueline({ baseUrl: 'http://blueline.test', secret: SECRET, tenant: 'acme', auth: 'hmac', fetch: hmac.fetch }).lines.list();
    const [v, ts, hex] = hmac.seen[0]!.headers['x-service-signature']!.split(',');
    expect(v).toBe('v1');
    expect(hex).toBe(createHmac('sha256', SECRET).update(`${ts}.${hmac.seen[0]!.body}`).digest('hex'));

    const session = recordingFetch();
    await new Blueline({ baseUrl: 'http://blueline.test', auth: 'session', csrfToken: CSRF, fetch: session.fetch }).messages
      .react('msg_1', { reaction: 'love' })
      .catch(() => undefined);
    expect(session.seen[0]!.headers['x-csrf-token']).toBe(CSRF);
  });

  it("under auth 'hmac', the rotations whose answer is a secret send the bearer (the API takes no signature there); the others are signed", async () => {
    const rec = recordingFetch();
    const client = new Blueline({ baseUrl: 'http://blueline.test', secret: SECRET, tenant: 'acme', auth: 'hmac', fetch: rec.fetch });
    await client.signingSecret.rotate({ overlap_hours: 1 });
    await client.webhookSubscriptions.create({ url: 'https://example.com/hooks', events: ['message.received'] });
    await client.webhookSubscriptions.rotateSecret('sub_1');
    await client.webhookSubscriptions.update('sub_1', { enabled: false });
    await client.signingSecret.get();
    const [rotate, create, rotateSecret, update, get] = rec.seen;
    for (const bearer of [rotate, rotateSecret]) {
      expect(bearer!.headers.authorization).toBe(`Bearer ${SECRET}`);
      expect(bearer!.headers['x-service-signature']).toBeUndefined();
    }
    // The creation, the spec's route, is signed: a replay brings only the body it signed.
    for (const signed of [create, update, get]) {
      expect(signed!.headers.authorization).toBeUndefined();
      expect(signed!.headers['x-service-signature']).toMatch(/^v1,\d+,[0-9a-f]{64}$/);
    }
    // These are every operation the API takes by bearer only for that reason: a new one needs the SDK to follow.
    const bearerOnly = operations.filter((o) => o.auth === 'tenant-bearer').map((o) => `${o.method} ${o.path}`);
    expect(bearerOnly.sort()).toEqual(['POST /api/v1/signing-secret/rotate', 'POST /api/v1/webhook-subscriptions/{id}/rotate-secret']);
  });
});
