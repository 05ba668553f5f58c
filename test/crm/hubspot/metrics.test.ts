/**
 * HubSpot in the operator's metrics: calls by kind and outcome, how many projects' reply push
 * breakers are open, and the replies waiting for HubSpot and the oldest one's age (read from the
 * database, so every process reports the same figures).
 */
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STORE_KINDS } from '../../support/stores.js';
import { moveToNextNoonUtc, prepareSandbox } from '../../support/messaging.js';
import { hasSeries, promtoolInstalled, promtoolProblems, sample } from '../../support/metrics-text.js';
import { PORTAL, install, signed, startHarness, type HubSpotHarness } from './helpers.js';

const TOKEN = `metrics-${randomBytes(12).toString('hex')}`;
const PHONE = '+14155550123';
const TWO_MINUTES = 120_000;
const CALLS = 'blueline_hubspot_calls_total';
const BREAKERS = 'blueline_hubspot_push_breakers_open';
const WAITING = 'blueline_hubspot_replies_waiting';
const OLDEST = 'blueline_hubspot_oldest_waiting_reply_age_seconds';

describe.each(STORE_KINDS)('HubSpot metrics (%s)', (kind) => {
  let h: HubSpotHarness;
  let line: string;
  const scrape = async () => {
    const res = await h.t.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.statusCode).toBe(200);
    return res.body;
  };
  const reply = async (text: string) => {
    const res = await h.t.admin('POST', `/admin/v1/lines/${line}/simulate/inbound`, { from: PHONE, text });
    expect(res.statusCode).toBe(202);
  };
  const run = () => h.t.services.hubspot!.replyPush.runDue();
  /** PORTAL installed, and PHONE linked to its contact Ada by a card send a second ago. */
  const linkedByCardSend = async () => {
    expect((await install(h, PORTAL)).statusCode).toBe(200);
    const contact = h.hs.addContact(PORTAL, { firstname: 'Ada', lastname: 'Lovelace', mobilephone: '(415) 555-0123', phone: null });
    const sent = await signed(h, 'POST', '/crm/hubspot/card/send', { portalId: String(PORTAL), objectId: contact, text: 'Hello from HubSpot', phone_line_id: line });
    expect(sent.json()).toMatchObject({ ok: true });
    h.t.clock.advance(1000);
  };

  beforeEach(async () => {
    h = await startHarness(kind, { METRICS_TOKEN: TOKEN });
    moveToNextNoonUtc(h.t.clock);
    await prepareSandbox(h.t);
    line = h.t.demo.phone_line_ids[0]!;
  });
  afterEach(async () => {
    await h?.close();
  });

  it('counts every call by kind and outcome, each failure series there at 0 from the start', async () => {
    const fresh = await scrape();
    // A first failure must be a rise from 0 for rate() and increase() to see it.
    expect(hasSeries(fresh, CALLS, { kind: 'reply_push', outcome: 'server' })).toBe(true);
    expect(hasSeries(fresh, CALLS, { kind: 'sidebar_send', outcome: 'rate_limited' })).toBe(true);
    expect(sample(fresh, CALLS)).toBe(0);
    expect(sample(fresh, BREAKERS)).toBe(0);

    expect((await install(h, PORTAL)).statusCode).toBe(200);
    const installed = await scrape();
    const installCalls = sample(installed, CALLS, { kind: 'install', outcome: 'ok' });
    // The code exchange, the token's portal and the account's details at least.
    expect(installCalls).toBeGreaterThanOrEqual(3);
    expect(sample(installed, CALLS)).toBe(installCalls);

    const contact = h.hs.addContact(PORTAL, { firstname: 'Ada', lastname: 'Lovelace', mobilephone: '(415) 555-0123', phone: null });
    const sent = await signed(h, 'POST', '/crm/hubspot/card/send', { portalId: String(PORTAL), objectId: contact, text: 'Hello from HubSpot', phone_line_id: line });
    expect(sent.json()).toMatchObject({ ok: true });
    const afterSend = await scrape();
    // The spec's table: a sidebar send makes one call (the contact read).
    expect(sample(afterSend, CALLS, { kind: 'sidebar_send', outcome: 'ok' })).toBe(1);

    // A refused contact read is counted under its failure. (A card send signed in the same second
    // is the same send, answered again: this one is signed a second later.)
    h.hs.fault('contact-read', { status: 503 });
    const refused = await signed(h, 'POST', '/crm/hubspot/card/send', { portalId: String(PORTAL), objectId: contact, text: 'Again', phone_line_id: line }, { timestampMs: Date.now() + 1000 });
    expect(refused.json()).toMatchObject({ ok: false });
    expect(sample(await scrape(), CALLS, { kind: 'sidebar_send', outcome: 'server' })).toBeGreaterThanOrEqual(1);
    if (promtoolInstalled) expect(promtoolProblems(await scrape())).toBe('');
  });

  it('shows a reply push breaker open while it is, and closed again after a successful probe; the waiting reply and its age until it is pushed', async () => {
    await linkedByCardSend();
    expect(sample(await scrape(), WAITING)).toBe(0);
    await reply('a reply HubSpot will refuse for a while');
    const recordedAt = h.t.clock.now();
    const queued = await scrape();
    expect(sample(queued, WAITING)).toBe(1);
    expect(sample(queued, OLDEST)).toBeLessThan(1); // the test clock also runs

    // One failed push per run (a 503'd create is looked up two minutes later): five runs open it.
    h.hs.fault('communication-create', { status: 503 }, { times: 5 });
    for (let i = 0; i < 5; i++) {
      if (i > 0) h.t.clock.advance(TWO_MINUTES + 1000);
      await run();
    }
    const open = await scrape();
    expect(sample(open, BREAKERS)).toBe(1);
    expect(sample(open, CALLS, { kind: 'reply_push', outcome: 'server' })).toBe(5);
    expect(sample(open, WAITING)).toBe(1);

    h.t.clock.advance(TWO_MINUTES + 1000);
    // Waiting since it was recorded: what an alert on HubSpot not getting replies watches.
    const age = sample(await scrape(), OLDEST);
    const waited = (h.t.clock.now() - recordedAt) / 1000;
    expect(age).toBeGreaterThanOrEqual(waited - 1); // the test clock also runs: recordedAt was read just after
    expect(age).toBeLessThan(waited + 5);
    await run();
    const closed = await scrape();
    expect(sample(closed, BREAKERS)).toBe(0);
    expect(sample(closed, WAITING)).toBe(0);
    expect(sample(closed, OLDEST)).toBe(0);
    // The probe's three calls: the look-up (a 503'd create may have made it), the communication, its association.
    expect(sample(closed, CALLS, { kind: 'reply_push', outcome: 'ok' }) - sample(open, CALLS, { kind: 'reply_push', outcome: 'ok' })).toBe(3);
    expect(sample(closed, CALLS, { kind: 'reply_push', outcome: 'server' })).toBe(5);
  });

  it('does not count replies for a portal that was uninstalled (they wait for an install again, not for the operator)', async () => {
    await linkedByCardSend();
    await reply('before the uninstall');
    expect(sample(await scrape(), WAITING)).toBe(1);
    expect((await h.t.api('DELETE', `/api/v1/integrations/hubspot/${PORTAL}`)).statusCode).toBeLessThan(300);
    await reply('after the uninstall');
    h.t.clock.advance(TWO_MINUTES);
    const after = await scrape();
    expect(sample(after, WAITING)).toBe(0);
    expect(sample(after, OLDEST)).toBe(0);
  });
});
