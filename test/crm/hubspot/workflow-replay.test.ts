/**
 * A v1/v2-signed request has no timestamp: a captured workflow action stays validly signed for
 * good. Its callbackId record used to live 7 days, after which a replay texted the contact again;
 * it now never expires, as contact-creation records.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { STORE_KINDS } from '../../support/stores.js';
import { allDeviceLogs } from '../../support/messaging.js';
import { PORTAL, signed, startHarness, startPortal, workflowPayload, type HubSpotHarness } from './helpers.js';

const DAY = 86_400_000;

describe.each(STORE_KINDS)('workflow replay (%s)', (kind) => {
  let h: HubSpotHarness;
  beforeEach(async () => {
    h = await startPortal(kind);
  });
  afterEach(async () => h.close());

  it('a v2-signed action replayed past the old 7 days, and a year later, is a duplicate: the contact is texted once', async () => {
    const payload = workflowPayload(PORTAL, '601', 'cb-captured', { phone: '+14155550801', message: 'Only once' });
    const first = (await signed(h, 'POST', '/crm/hubspot/workflow/send', payload, { version: 'v2' })).json();
    expect(first).toMatchObject({ ok: true, outputFields: { hs_execution_state: 'SUCCESS' } });
    for (const days of [8, 365]) {
      h.t.clock.advance(days * DAY);
      const replay = await signed(h, 'POST', '/crm/hubspot/workflow/send', payload, { version: 'v2' });
      expect(replay.json()).toMatchObject({ ok: true, duplicate: true, message_id: first.message_id });
    }
    const texts = (await allDeviceLogs(h.t)).map((e) => JSON.stringify(e)).filter((x) => x.includes('Only once'));
    expect(texts).toHaveLength(1);
  });
});

it('records written before (7 days) are kept for good by the migration', async () => {
  const { migrations } = await import('../../../src/store/migrations/index.js');
  const h = await startHarness('sqlite');
  try {
    const db = h.t.testStore.store.database.db;
    const now = h.t.clock.now();
    const tenant = (await h.t.testStore.store.tenants.getBySlug('demo'))!;
    const row = { tenant_id: tenant.id, fingerprint: '', identity: '', state: 'done', http_status: null, response: '{}', created_at: now } as const;
    await db.insertInto('idempotency_keys').values([
      { ...row, route: 'crm:hubspot:workflow', key: `${PORTAL}:old`, expires_at: now + 7 * DAY },
      { ...row, route: 'crm:hubspot:card_send', key: `${PORTAL}:1:1`, expires_at: now + DAY },
    ]).execute();
    await migrations['016_hubspot_held_actions']!.down!(db as never);
    await migrations['016_hubspot_held_actions']!.up(db as never);
    const r = await sql<{ route: string; expires_at: number }>`select route, expires_at from idempotency_keys where tenant_id = ${tenant.id} order by route`.execute(db);
    expect(r.rows.map((x) => [x.route, Number(x.expires_at)])).toEqual([
      ['crm:hubspot:card_send', now + DAY],
      ['crm:hubspot:workflow', Number.MAX_SAFE_INTEGER],
    ]);
  } finally {
    await h.close();
  }
});
