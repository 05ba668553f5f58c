/**
 * Reply push from its queue (migration 027): a reply gets its push row when it is recorded; a
 * reply recorded before its sender's link was visible is found by the run's sweep of new links;
 * replies a previous version recorded (no push row) are found after the upgrade. All by the
 * test clock, against the stand-in HubSpot.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STORE_KINDS } from '../../support/stores.js';
import { PORTAL, signed, startReplyPush, type HubSpotHarness } from './helpers.js';
import * as m027 from '../../../src/store/migrations/027_reply_push_queue.js';
import { sql } from 'kysely';
import { LINK_SETTLE_MS, UPGRADE_SWEEP_MS } from '../../../src/crm/hubspot/push-job.js';

const PHONE = '+14155550123';
const TWO_MINUTES = 120_000;

describe.each(STORE_KINDS)('HubSpot reply push queue (%s)', (kind) => {
  let h: HubSpotHarness;
  let contact: string;
  let line: string;
  const run = () => h.t.services.hubspot!.replyPush.runDue();
  const backlog = async () => (await h.t.api('GET', '/api/v1/integrations/hubspot')).json().push_backlog as number;
  const timeline = () => [...h.hs.portal(PORTAL)!.communications.values()].map((c) => c.hs_communication_body);
  /** A reply from PHONE as the line reports it, stamped `sentAt` by the phone. */
  const reply = (text: string, sentAt: number) =>
    h.t.services.events.inbound(line, { guid: randomUUID().toUpperCase(), from: PHONE, parts: [{ type: 'text', value: text }], sentAt });
  const cardSend = async () => {
    const sent = await signed(h, 'POST', '/crm/hubspot/card/send', { portalId: String(PORTAL), objectId: contact, text: 'Hello from HubSpot', phone_line_id: line });
    expect(sent.json()).toMatchObject({ ok: true });
  };

  beforeEach(async () => {
    ({ h, contact, line } = await startReplyPush(kind));
  });
  afterEach(async () => {
    await h.close();
  });

  it('a reply recorded after the link waits in the backlog at once, and is pushed by the next run', async () => {
    await cardSend();
    h.t.clock.advance(1000);
    await reply('queued when recorded', h.t.clock.now());
    expect(await backlog()).toBe(1);
    expect(await run()).toBe(1);
    expect(timeline()).toHaveLength(1);
    expect(timeline()[0]).toContain('queued when recorded');
    expect(await backlog()).toBe(0);
  });

  it('a reply stamped by a phone whose clock runs ahead, recorded just before the CRM send linked its number, is pushed; an earlier one is not', async () => {
    const linkAt = h.t.clock.now();
    await reply('before the link', linkAt - 5_000);
    // Recorded before the link existed, its time after the link's: the link's reply history.
    await reply('phone clock ahead', linkAt + 3_000);
    await cardSend();
    await run();
    expect(timeline()).toHaveLength(1);
    expect(timeline()[0]).toContain('phone clock ahead');
    // The link settles once a minute old; what it swept stays pushed once.
    h.t.clock.advance(LINK_SETTLE_MS + TWO_MINUTES);
    await reply('later', h.t.clock.now());
    await run();
    expect(timeline()).toHaveLength(2);
    h.t.clock.advance(TWO_MINUTES);
    await run();
    expect(timeline()).toHaveLength(2);
    expect(timeline().join()).not.toContain('before the link');
  });

  it('after the upgrade to the queue, replies the previous version recorded and never pushed are pushed, oldest first; pushed ones are not pushed again', async () => {
    await cardSend();
    h.t.clock.advance(1000);
    await reply('pushed before the upgrade', h.t.clock.now());
    await run();
    expect(timeline()).toHaveLength(1);
    // The previous version's schema, and two replies recorded as it recorded them: without push rows.
    const db = h.t.testStore.store.database.db;
    await m027.down(db as never);
    h.t.clock.advance(1000);
    await reply('waiting at the upgrade (1)', h.t.clock.now());
    h.t.clock.advance(1000);
    await reply('waiting at the upgrade (2)', h.t.clock.now());
    await db.deleteFrom('hubspot_reply_pushes').where('state', '=', 'pending').execute();
    await m027.up(db as never);
    h.t.clock.advance(TWO_MINUTES);
    expect(await run()).toBe(1);
    expect(timeline()).toHaveLength(3);
    expect(timeline()[1]).toContain('waiting at the upgrade (1)');
    expect(timeline()[2]).toContain('waiting at the upgrade (2)');
    expect(await backlog()).toBe(0);
  });

  it("for an hour after the upgrade, a reply that a process of the previous version records (without queueing it) is pushed, though the link is older than a minute", async () => {
    const db = h.t.testStore.store.database.db;
    // The upgrade that brought the queue happened now; processes of the version before still run.
    await sql`update kysely_migration set timestamp = ${new Date(h.t.clock.now()).toISOString()} where name = '027_reply_push_queue'`.execute(db);
    await cardSend();
    h.t.clock.advance(1000);
    await reply('queued by the new version', h.t.clock.now());
    await run();
    h.t.clock.advance(TWO_MINUTES);
    await run(); // the link is over a minute old by now
    // An old process records a reply as it did: no push row.
    await reply('recorded by the old version', h.t.clock.now());
    await db.deleteFrom('hubspot_reply_pushes').where('state', '=', 'pending').execute();
    h.t.clock.advance(TWO_MINUTES);
    await run();
    expect(timeline()).toHaveLength(2);
    expect(timeline()[1]).toContain('recorded by the old version');
    // After the hour, links settle: the runs read only the queue again.
    h.t.clock.advance(UPGRADE_SWEEP_MS);
    await run();
    const unsettled = await db.selectFrom('hubspot_contact_links').select('handle').where('settled', '=', 0).execute();
    expect(unsettled).toEqual([]);
  });
});
