/** Two processes on one PostgreSQL push a tenant's replies: never the same reply twice. */
import { afterEach, expect, it } from 'vitest';
import { sql } from 'kysely';
import { eventually, prepareSandbox } from '../../support/messaging.js';
import { PORTAL, install, signed, startHarness, type HubSpotHarness } from './helpers.js';

const PHONE = '+14155550123';
let a: HubSpotHarness | undefined;
let b: HubSpotHarness | undefined;
afterEach(async () => {
  await b?.close();
  await a?.close();
  a = b = undefined;
});

it('two processes on one PostgreSQL never push the same reply twice, even running one tenant at once', async () => {
  a = await startHarness('postgres');
  await prepareSandbox(a.t);
  expect((await install(a, PORTAL)).statusCode).toBe(200);
  const contact = a.hs.addContact(PORTAL, { mobilephone: PHONE });
  const line = a.t.demo.phone_line_ids[0]!;
  expect((await signed(a, 'POST', '/crm/hubspot/card/send', { portalId: String(PORTAL), objectId: contact, text: 'hi', phone_line_id: line })).json().ok).toBe(true);
  b = await startHarness('postgres', {}, a);
  const replies = async (n: number, tag: string) => {
    for (let i = 0; i < n; i++) expect((await a!.t.admin('POST', `/admin/v1/lines/${line}/simulate/inbound`, { from: PHONE, text: `${tag}-${i}` })).statusCode).toBe(202);
  };
  const runA = () => a!.t.services.hubspot!.replyPush.runDue();
  const runB = () => b!.t.services.hubspot!.replyPush.runDue();
  const advance = (ms: number) => {
    a!.t.clock.advance(ms);
    b!.t.clock.advance(ms);
  };

  await replies(30, 'first');
  advance(1000);
  // Both processes at once: the tenant's lease lets one run it.
  const ran = await Promise.all([runA(), runB(), runA(), runB()]);
  expect(ran.reduce((x, y) => x + y, 0)).toBe(1);
  expect(a.hs.calls(PORTAL, 'communication-create')).toBe(30);

  // The tenant's lease taken from under a running process (as if it had run out): the replies' own leases still hold.
  await replies(40, 'second');
  advance(120_000);
  const first = runA();
  // Until the first process is part-way through: it has pushed some of the second replies.
  // 20 s is the end of waiting on a loaded machine, not a latency budget.
  const pushed = await eventually(async () => a!.hs.calls(PORTAL, 'communication-create'), (n) => n >= 32, 20_000);
  expect(pushed, 'the first process pushed none of the second replies within 20 s').toBeGreaterThanOrEqual(32);
  await sql`update hubspot_push_state set lease_until = null`.execute(a.t.testStore.store.database.db);
  const second = runB();
  expect(await second).toBe(1);
  await first;
  // Whatever the second process left (replies the first held) goes in the next run.
  advance(120_000);
  await Promise.all([runA(), runB()]);

  const portal = a.hs.portal(PORTAL)!;
  const bodies = [...portal.communications.values()].map((c) => /<p>((first|second)-\d+)<\/p>/.exec(c.hs_communication_body!)![1]);
  expect(bodies).toHaveLength(70);
  expect(new Set(bodies).size).toBe(70);
  expect(a.hs.calls(PORTAL, 'communication-create')).toBe(70);
  expect(a.hs.calls(PORTAL, 'association-put')).toBe(70);
  expect((await a.t.api('GET', '/api/v1/integrations/hubspot')).json().push_backlog).toBe(0);
});
