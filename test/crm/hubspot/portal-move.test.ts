/**
 * A portal one project uninstalled and another project (of another account) installs: the new
 * project starts afresh. It sees none of the first project's auto-send settings (its template,
 * its line), none of its contact-creation records (nor their message ids), none of its HubSpot
 * calls of the day, and turns auto-send on with its own settings. (Before, the install row kept
 * the first project's template and line, its records were listed to the second, its calls were
 * counted in the second's calls_today, and enabling auto-send failed 2006 naming its line.)
 * A reinstall by the same project keeps its settings, as before.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { prepareSandbox } from '../../support/messaging.js';
import { STORE_KINDS } from '../../support/stores.js';
import { PORTAL, cardUrl, install, installOf, signed, startHarness, webhookEvent, type HubSpotHarness } from './helpers.js';

describe.each(STORE_KINDS)('a portal moving to another project (%s)', (kind) => {
  let h: HubSpotHarness;
  afterEach(async () => h.close());

  /** Project B, of another account, with a line of its own: its API secret. */
  async function projectB(): Promise<string> {
    const acct = (await h.t.admin('POST', '/admin/v1/accounts', { name: 'B' })).json();
    expect((await h.t.admin('POST', '/admin/v1/tenants', { account_id: acct.account.id, slug: 'bee' })).statusCode).toBe(201);
    expect((await h.t.admin('POST', '/admin/v1/lines', { tenant: 'bee', phone_number: '+15550108888', driver: 'simulator' })).statusCode).toBe(201);
    return acct.signing_secret as string;
  }

  /** The install flow as project B's browser does it. */
  async function installAsB(secret: string) {
    const start = await h.t.api('POST', '/api/v1/integrations/hubspot/install', undefined, { secret });
    expect(start.statusCode).toBe(201);
    h.hs.authorizeAs(PORTAL);
    const back = new URL((await fetch(start.json().install_url, { redirect: 'manual' })).headers.get('location')!);
    expect((await h.t.request({ method: 'GET', url: `${back.pathname}${back.search}` })).statusCode).toBe(200);
  }

  it("the new project sees none of the old project's auto-send settings, records or calls, and sets its own", async () => {
    h = await startHarness(kind);
    await prepareSandbox(h.t);
    // Project A (demo): auto-send with its own line and template, a contact texted, the card opened.
    expect((await install(h, PORTAL)).statusCode).toBe(200);
    const aLine = h.t.demo.phone_line_ids[0]!;
    const template = 'A-only offer for {{firstname}}';
    expect((await h.t.api('PATCH', `/api/v1/integrations/hubspot/${PORTAL}`, { auto_send: { enabled: true, template, line_id: aLine } })).statusCode).toBe(200);
    const ada = h.hs.addContact(PORTAL, { firstname: 'Ada', mobilephone: '+14155550123' });
    await signed(h, 'POST', '/crm/hubspot/webhook', [webhookEvent(PORTAL, ada)]);
    await h.t.services.hubspot!.autoSends.drain();
    expect((await signed(h, 'GET', cardUrl(PORTAL, ada))).statusCode).toBe(200);
    const aAutoSends = (await h.t.api('GET', `/api/v1/integrations/hubspot/${PORTAL}/auto-sends`)).json().auto_sends;
    expect(aAutoSends).toMatchObject([{ object_id: ada, status: 'sent', message_id: expect.stringMatching(/^msg_/) }]);
    expect((await installOf(h, PORTAL)).calls_today.total_counted).toBe(2);

    // A reinstall by A keeps A's settings.
    expect((await install(h, PORTAL)).statusCode).toBe(200);
    expect((await installOf(h, PORTAL)).auto_send).toEqual({ enabled: true, template, line_id: aLine });

    // A uninstalls; project B installs the same portal.
    expect((await h.t.api('DELETE', `/api/v1/integrations/hubspot/${PORTAL}`)).statusCode).toBe(200);
    const secret = await projectB();
    await installAsB(secret);

    const installs = (await h.t.api('GET', '/api/v1/integrations/hubspot', undefined, { secret })).json().installs;
    expect(installs).toHaveLength(1);
    expect(installs[0]).toMatchObject({ portal_id: String(PORTAL), status: 'active', auto_send: { enabled: false, template: null, line_id: null } });
    expect(installs[0].calls_today).toMatchObject({ sidebar_load: 0, contact_created: 0, total_counted: 0 });
    const bList = await h.t.api('GET', `/api/v1/integrations/hubspot/${PORTAL}/auto-sends`, undefined, { secret });
    expect(bList.statusCode).toBe(200);
    expect(bList.json().auto_sends).toEqual([]);

    // B turns auto-send on with its own template (no line of A's in the way), and its own contact is listed to it.
    const enabled = await h.t.api('PATCH', `/api/v1/integrations/hubspot/${PORTAL}`, { auto_send: { enabled: true, template: 'Hi {{firstname}}, from B' } }, { secret });
    expect(enabled.statusCode).toBe(200);
    expect(enabled.json().install.auto_send).toEqual({ enabled: true, template: 'Hi {{firstname}}, from B', line_id: null });
    const bob = h.hs.addContact(PORTAL, { firstname: 'Bob', mobilephone: '+14155550124' });
    await signed(h, 'POST', '/crm/hubspot/webhook', [webhookEvent(PORTAL, bob)]);
    await h.t.services.hubspot!.autoSends.drain();
    const bRows = (await h.t.api('GET', `/api/v1/integrations/hubspot/${PORTAL}/auto-sends`, undefined, { secret })).json().auto_sends;
    expect(bRows).toMatchObject([{ object_id: bob, status: 'sent' }]);
    expect(bRows.map((r: { message_id: string }) => r.message_id)).not.toContain(aAutoSends[0].message_id);
    expect((await h.t.api('GET', '/api/v1/integrations/hubspot', undefined, { secret })).json().installs[0].calls_today).toMatchObject({ contact_created: 1, total_counted: 1 });
  });
});
