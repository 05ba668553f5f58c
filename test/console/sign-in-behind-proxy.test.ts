/**
 * Behind a load balancer every client comes from its address: the failed sign-in limit (ten a
 * minute per address) would then lock everyone, the operator included, out after anyone's ten
 * typos. With BLUELINE_TRUST_PROXY naming the load balancer, X-Forwarded-For names the client;
 * from anyone else the header is ignored (a client could otherwise pick a new address per try).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { loadConfig, ConfigError } from '../../src/config.js';

const ORIGIN = 'http://console.test';
const LOAD_BALANCER = '10.1.0.2';

describe('console sign-in behind a load balancer', () => {
  let t: TestApp;
  afterEach(async () => t?.close());

  const signIn = (body: object, forwardedFor: string, from = LOAD_BALANCER) =>
    t.request({
      method: 'POST',
      url: '/api/v1/console/sessions',
      payload: body,
      headers: { host: 'console.test', origin: ORIGIN, 'x-forwarded-for': forwardedFor },
      remoteAddress: from,
    });
  const failTenTimes = async (forwardedFor: string, from?: string) => {
    for (let i = 0; i < 10; i++) expect((await signIn({ kind: 'tenant', tenant: t.demo.tenant, secret: `wrong-${i}` }, forwardedFor, from)).statusCode).toBe(401);
  };

  it('with BLUELINE_TRUST_PROXY, counts failures per forwarded client', async () => {
    t = await startTestApp('sqlite', { BLUELINE_TRUST_PROXY: '10.1.0.0/24' });
    await failTenTimes('203.0.113.5');
    expect((await signIn({ kind: 'operator', admin_token: t.adminToken }, '203.0.113.5')).statusCode).toBe(429);
    // The operator at another address signs in.
    expect((await signIn({ kind: 'operator', admin_token: t.adminToken }, '198.51.100.7')).statusCode).toBe(201);
    // A header from a peer that is not the load balancer names nobody: its own address counts.
    await failTenTimes('192.0.2.1', '192.0.2.99');
    expect((await signIn({ kind: 'operator', admin_token: t.adminToken }, '192.0.2.2', '192.0.2.99')).statusCode).toBe(429);
  });

  it('without it, X-Forwarded-For is ignored: a client cannot pick a fresh address per try', async () => {
    t = await startTestApp('sqlite');
    for (let i = 0; i < 10; i++) expect((await signIn({ kind: 'tenant', tenant: t.demo.tenant, secret: `wrong-${i}` }, `203.0.113.${i}`)).statusCode).toBe(401);
    expect((await signIn({ kind: 'operator', admin_token: t.adminToken }, '198.51.100.7')).statusCode).toBe(429);
  });

  it('takes addresses, CIDR ranges, proxy-addr\'s range names or a hop count, and refuses anything else', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ BLUELINE_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ BLUELINE_TRUST_PROXY: '10.0.0.0/8, 192.168.1.7,fd00::/8,loopback' }).trustProxy).toEqual(['10.0.0.0/8', '192.168.1.7', 'fd00::/8', 'loopback']);
    for (const bad of ['0', '17', 'true', '10.0.0.0/33', 'lb.internal', '10.0.0.1/8/1', '10.0.0.0/']) {
      expect(() => loadConfig({ BLUELINE_TRUST_PROXY: bad }), bad).toThrow(ConfigError);
    }
  });
});
