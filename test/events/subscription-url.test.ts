/**
 * A subscription URL whose host name resolves to a non-public address is refused when the
 * subscription is created (400/1002 naming the address class and the switch that allows it),
 * not accepted and failed at every delivery. DNS answers are scripted through the address guard
 * (the resolver is the outside part here); the policy is the real one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { createAddressGuard } from '../../src/net/index.js';

const ANSWERS: Record<string, string[]> = {
  'hooks.internal.example': ['10.1.2.3'],
  'metadata.example': ['169.254.169.254'],
  'mixed.example': ['93.184.216.34', '192.168.1.20'],
  'v6-local.example': ['fd00::5'],
  'public.example': ['93.184.216.34'],
};

const guard = createAddressGuard({
  baseLookup: (hostname, _options, callback) => {
    const list = ANSWERS[hostname];
    if (!list) return callback(Object.assign(new Error(`${hostname} not found`), { code: 'ENOTFOUND' }), []);
    callback(null, list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  },
});

describe('webhook subscription URLs resolving to private addresses', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite', {}, { addressGuard: guard });
  });
  afterAll(async () => t.close());

  const create = (url: string) => t.api('POST', '/api/v1/webhook-subscriptions', { url, events: ['message.received'] });

  it.each([
    ['https://hooks.internal.example/blueline', 'hooks.internal.example resolves to 10.1.2.3: private (10.0.0.0/8)'],
    ['https://metadata.example/', 'metadata.example resolves to 169.254.169.254: link-local (169.254.0.0/16)'],
    ['https://mixed.example/h', 'mixed.example resolves to 192.168.1.20: private (192.168.0.0/16)'],
    ['https://v6-local.example/h', 'v6-local.example resolves to fd00::5'],
  ])('refuses %s at creation, naming the address class', async (url, reason) => {
    const res = await create(url);
    expect(res.statusCode).toBe(400);
    const { error } = res.json();
    expect(error.code).toBe(1002);
    expect(error.message).toContain(`url is not allowed: url host must be a public address: ${reason}`);
    expect(error.message).toContain('BLUELINE_ALLOW_PRIVATE_NETWORKS=1');
    expect((await t.api('GET', '/api/v1/webhook-subscriptions')).json().subscriptions.map((s: { url: string }) => s.url)).not.toContain(url);
  });

  it('names the switch for literal private addresses and localhost too', async () => {
    for (const url of ['https://10.0.0.8/h', 'https://localhost/h', 'https://[::1]/h']) {
      const res = await create(url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error.message, url).toContain('BLUELINE_ALLOW_PRIVATE_NETWORKS=1');
    }
  });

  it('checks a changed url the same way (PATCH): a name resolving to a private address is refused, the url kept', async () => {
    const sub = (await create('https://public.example/h')).json();
    const res = await t.api('PATCH', `/api/v1/webhook-subscriptions/${sub.id}`, { url: 'https://hooks.internal.example/blueline' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toContain('hooks.internal.example resolves to 10.1.2.3: private (10.0.0.0/8)');
    expect((await t.api('GET', `/api/v1/webhook-subscriptions/${sub.id}`)).json().url).toBe('https://public.example/h');
  });

  it('accepts a public name, and a name that does not resolve yet (delivery reports it)', async () => {
    expect((await create('https://public.example/h')).statusCode).toBe(201);
    expect((await create('https://not-yet.example/h')).statusCode).toBe(201);
  });
});

describe('with BLUELINE_ALLOW_PRIVATE_NETWORKS=1', () => {
  it('accepts a name resolving to a private address (local receivers)', async () => {
    const t = await startTestApp('sqlite', { BLUELINE_ALLOW_PRIVATE_NETWORKS: '1' }, { addressGuard: guard });
    try {
      const res = await t.api('POST', '/api/v1/webhook-subscriptions', { url: 'https://hooks.internal.example/blueline', events: ['message.received'] });
      expect(res.statusCode).toBe(201);
    } finally {
      await t.close();
    }
  });
});
