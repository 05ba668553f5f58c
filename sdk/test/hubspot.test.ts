/** client.hubspot against the real service and the HubSpot stand-in (test/support/hubspot). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Blueline, BlueLineError } from '@blueline/sdk';
import { startService, type Service } from './support/service.js';
import { startHubSpotStandin } from '../../test/support/hubspot/standin.js';

const PORTAL = 62515;

describe('hubspot', () => {
  let hs: Awaited<ReturnType<typeof startHubSpotStandin>>;
  let svc: Service;
  let plain: Service;
  let client: Blueline;

  beforeAll(async () => {
    hs = await startHubSpotStandin({ clientId: 'sdk-client', clientSecret: 'sdk-client-secret' });
    hs.addPortal(PORTAL, 'STANDARD');
    hs.addPortal(99001, 'SANDBOX');
    svc = await startService({ HUBSPOT_CLIENT_ID: 'sdk-client', HUBSPOT_CLIENT_SECRET: 'sdk-client-secret', HUBSPOT_API_BASE: hs.url, HUBSPOT_AUTH_BASE: hs.url });
    plain = await startService();
    client = new Blueline(svc.options);
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await plain?.stop();
    await hs?.close();
  });

  it('status() is null when the service has no HubSpot app', async () => {
    expect(await new Blueline(plain.options).hubspot.status()).toBeNull();
  });

  it('installs through the consent page, updates the auto-send, lists auto-sends, uninstalls', async () => {
    expect(await client.hubspot.status()).toMatchObject({ installs: [], breaker: { state: 'closed' }, push_backlog: 0 });
    const { install_url, expires_at } = await client.hubspot.startInstall();
    expect(Date.parse(expires_at)).toBeGreaterThan(Date.now());
    hs.authorizeAs(PORTAL);
    const consent = await fetch(install_url, { redirect: 'manual' });
    expect((await fetch(consent.headers.get('location')!)).status).toBe(200);

    const status = await client.hubspot.status();
    expect(status!.installs).toEqual([expect.objectContaining({ portal_id: String(PORTAL), status: 'active', sandbox: false, auto_send: { enabled: false, template: null, line_id: null } })]);
    expect(status!.installs[0]!.calls_today.total_counted).toBeGreaterThanOrEqual(0);

    // Enabling without a template is the API's 1002, surfaced as a typed error.
    const refused = await client.hubspot.update(String(PORTAL), { auto_send: { enabled: true } }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BlueLineError);
    expect((refused as BlueLineError).code).toBe(1002);
    const { install } = await client.hubspot.update(String(PORTAL), { auto_send: { enabled: true, template: 'Hi {{firstname}}' } });
    expect(install.auto_send).toMatchObject({ enabled: true, template: 'Hi {{firstname}}' });

    expect(await client.hubspot.autoSends(String(PORTAL))).toEqual({ auto_sends: [], next_cursor: null });
    expect(await client.hubspot.heldActions(String(PORTAL), { state: 'held' })).toEqual({ held_actions: [], next_cursor: null });
    expect((await client.hubspot.uninstall(String(PORTAL))).install.status).toBe('uninstalled');
  });
});
