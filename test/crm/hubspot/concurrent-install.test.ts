/**
 * Two projects finishing HubSpot's OAuth install for the same portal at the same moment. A portal
 * belongs to one project: exactly one callback connects it, the other is told 1012 ("connected to
 * another project"), and the install row is wholly the winner's (its tokens work, and the settings
 * are the winner's: kept on a reinstall by the same project, reset on a move). Before, both
 * callers were shown "now connected" and the project that lost learned it from an empty list.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { STORE_KINDS } from '../../support/stores.js';
import { PORTAL, cardUrl, install, signed, startHarness, type HubSpotHarness } from './helpers.js';

describe.each(STORE_KINDS)('two projects installing one portal at once (%s)', (kind) => {
  let h: HubSpotHarness;
  afterEach(async () => h.close());

  /** Project B, of another account, with a line of its own: its API secret. */
  async function projectB(): Promise<string> {
    const acct = (await h.t.admin('POST', '/admin/v1/accounts', { name: 'B' })).json();
    expect((await h.t.admin('POST', '/admin/v1/tenants', { account_id: acct.account.id, slug: 'bee' })).statusCode).toBe(201);
    return acct.signing_secret as string;
  }

  /** Install started and consented in HubSpot by the project whose secret is given (demo's when none): the callback's path and query, not yet called. */
  async function consented(secret?: string): Promise<string> {
    const start = await h.t.api('POST', '/api/v1/integrations/hubspot/install', undefined, secret ? { secret } : {});
    expect(start.statusCode).toBe(201);
    h.hs.authorizeAs(PORTAL);
    const back = new URL((await fetch(start.json().install_url, { redirect: 'manual' })).headers.get('location')!);
    return `${back.pathname}${back.search}`;
  }

  const installsOf = async (secret?: string) => (await h.t.api('GET', '/api/v1/integrations/hubspot', undefined, secret ? { secret } : {})).json().installs as any[];

  /** Both callbacks at once; which project won, after checking exactly one did and the other was told why. */
  async function race(a: string, b: string): Promise<'demo' | 'bee'> {
    // HubSpot answers both account-details reads together, so both callbacks reach the store in the same instant.
    h.hs.fault('account-details', { delayMs: 300 }, { times: 2 });
    const [ra, rb] = await Promise.all([h.t.request({ method: 'GET', url: a }), h.t.request({ method: 'GET', url: b })]);
    expect([ra.statusCode, rb.statusCode].sort()).toEqual([200, 409]);
    const [won, lost] = ra.statusCode === 200 ? [ra, rb] : [rb, ra];
    const winner = ra.statusCode === 200 ? 'demo' : 'bee';
    expect(won.body).toContain(`is now connected to project &#34;${winner}&#34;`);
    expect(lost.json()).toMatchObject({ success: false, error: { code: 1012, status: 409, retryable: false, message: expect.stringContaining('connected to another project') } });
    return winner;
  }

  it('a portal new to both: one connects it, the other is refused 1012, and the row is the winner\'s', async () => {
    h = await startHarness(kind);
    const secret = await projectB();
    for (let round = 0; round < 3; round++) {
      const a = await consented();
      const b = await consented(secret);
      const winner = await race(a, b);
      const [mine, theirs] = winner === 'demo' ? [await installsOf(), await installsOf(secret)] : [await installsOf(secret), await installsOf()];
      expect(mine).toMatchObject([{ portal_id: String(PORTAL), status: 'active', auto_send: { enabled: false, template: null, line_id: null } }]);
      expect(theirs).toEqual([]);
      // The stored tokens work (the card reads the contact with them) and the card is the winner's project.
      const contact = h.hs.addContact(PORTAL, { firstname: 'Ada', mobilephone: '+14155550123' });
      const card = await signed(h, 'GET', cardUrl(PORTAL, contact));
      expect(card.json()).toMatchObject({ ok: true });
      // Next round: the winner uninstalls, so the portal is free again.
      expect((await h.t.api('DELETE', `/api/v1/integrations/hubspot/${PORTAL}`, undefined, winner === 'bee' ? { secret } : {})).statusCode).toBe(200);
    }
  });

  it('a portal its project uninstalled: that project reinstalling and another moving it in at once — one wins, settings follow the winner', async () => {
    h = await startHarness(kind);
    const secret = await projectB();
    const template = 'A-only offer for {{firstname}}';
    expect((await install(h, PORTAL)).statusCode).toBe(200);
    expect((await h.t.api('PATCH', `/api/v1/integrations/hubspot/${PORTAL}`, { auto_send: { enabled: true, template } })).statusCode).toBe(200);
    expect((await h.t.api('DELETE', `/api/v1/integrations/hubspot/${PORTAL}`)).statusCode).toBe(200);

    const winner = await race(await consented(), await consented(secret));
    if (winner === 'demo') {
      // A reinstall by the same project keeps its template (auto-send stays off after the uninstall).
      expect(await installsOf()).toMatchObject([{ portal_id: String(PORTAL), status: 'active', auto_send: { enabled: false, template } }]);
      expect(await installsOf(secret)).toEqual([]);
    } else {
      // A move resets the settings: B sees none of A's; A's list shows the portal gone.
      expect(await installsOf(secret)).toMatchObject([{ portal_id: String(PORTAL), status: 'active', auto_send: { enabled: false, template: null, line_id: null } }]);
      expect(await installsOf()).toEqual([]);
    }
  });
});
