/**
 * client.hubspot.status() is null only when the service has no HubSpot app (404 / 2011); any
 * other failure, a 404 included (an unknown tenant, 2001), reaches the caller as its typed error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Blueline, NotFoundError } from '@blueline/sdk';
import { startService, type Service } from './support/service.js';

describe('hubspot.status()', () => {
  let configured: Service;
  let plain: Service;

  beforeAll(async () => {
    // No HubSpot call is made by status(): the app only has to be configured.
    [configured, plain] = await Promise.all([startService({ HUBSPOT_CLIENT_ID: 'sdk-client', HUBSPOT_CLIENT_SECRET: 'sdk-client-secret' }), startService()]);
  }, 60_000);
  afterAll(async () => {
    await configured?.stop();
    await plain?.stop();
  });

  it('is null when the service has no HubSpot app (404 / 2011)', async () => {
    expect(await new Blueline({ ...plain.options, maxRetries: 0 }).hubspot.status()).toBeNull();
  });

  it('throws an unknown tenant (404 / 2001) instead of reporting "not configured"', async () => {
    const client = new Blueline({ ...configured.options, tenant: 'no-such-tenant', maxRetries: 0 });
    const err = await client.hubspot.status().then(
      (v) => v,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err).toMatchObject({ status: 404, code: 2001 });
    // The demo tenant of the same service sees its (empty) integration.
    expect(await new Blueline(configured.options).hubspot.status()).toMatchObject({ installs: [] });
  });
});
