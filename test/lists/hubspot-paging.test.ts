/**
 * A HubSpot portal's auto-sends and held actions, walked with next_cursor on SQLite and
 * PostgreSQL: every row once, newest first, also rows of one millisecond and rows recorded between
 * page reads; the state/status filter on every page; and a cursor that is not this portal's list's
 * own (made up, another list's, another portal's, changed or cut short) is 400 / 1002, not a page
 * from wherever it happens to point (it was the row id in the clear, taken as given).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { STORE_KINDS } from '../support/stores.js';
import { SANDBOX_PORTAL, PORTAL, install, signed, startHarness, webhookEvent, type HubSpotHarness } from '../crm/hubspot/helpers.js';
import { timeSortableId } from '../../src/domain/ids.js';

const freeze = () => vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
const thaw = () => vi.useRealTimers();

describe.each(STORE_KINDS)('HubSpot list paging (%s)', (kind) => {
  let h: HubSpotHarness;
  let objectSeq = 9300;
  let callbackSeq = 0;
  const autoSends = `/api/v1/integrations/hubspot/${PORTAL}/auto-sends`;
  const heldActions = `/api/v1/integrations/hubspot/${PORTAL}/held-actions`;

  async function contactCreated(portal = PORTAL) {
    const objectId = String(objectSeq++);
    expect((await signed(h, 'POST', '/crm/hubspot/webhook', [webhookEvent(portal, objectId)])).json()).toMatchObject({ recorded: 1 });
    return objectId;
  }

  /** A workflow action held for time, as held-actions.ts records one (its id made now). */
  async function held(portal = PORTAL) {
    const now = h.t.clock.now();
    const tenant = (await h.t.testStore.store.tenants.getBySlug('demo'))!;
    const row = await h.t.testStore.store.hubspotHeld.hold({
      id: `hsw_${timeSortableId(Date.now())}`, tenant_id: tenant.id, portal_id: String(portal), callback_id: `cb-${kind}-${callbackSeq++}`,
      object_id: String(objectSeq++), phone: '+14155550100', text: 'hi', links_contact: 1, next_attempt_at: now + 3_600_000,
      send_by: now + 86_400_000, expires_at: now + 2 * 86_400_000, reason: 'outside sending window', created_at: now, updated_at: now,
    });
    return row.callback_id;
  }

  async function walk(url: string, key: string, limit: number, between?: () => Promise<unknown>) {
    const pages: { object_id: string; callback_id?: string }[][] = [];
    const cursors: (string | null)[] = [];
    let cursor: string | null = null;
    do {
      const res = await h.t.api('GET', `${url}${url.includes('?') ? '&' : '?'}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.statusCode, res.body).toBe(200);
      pages.push(res.json()[key]);
      cursor = res.json().next_cursor;
      cursors.push(cursor);
      if (cursor) await between?.();
    } while (cursor && pages.length < 100);
    expect(cursors.slice(0, -1).every((c) => typeof c === 'string')).toBe(true);
    expect(pages.slice(0, -1).every((p) => p.length === limit)).toBe(true);
    expect(pages[pages.length - 1]!.length).toBeGreaterThan(0);
    return pages.flat();
  }

  async function refused(url: string) {
    const res = await h.t.api('GET', url);
    expect({ url, status: res.statusCode, code: res.json().error?.code }).toEqual({ url, status: 400, code: 1002 });
    return res.json().error.message as string;
  }

  beforeAll(async () => {
    h = await startHarness(kind);
    expect((await install(h, PORTAL)).statusCode).toBe(200);
    expect((await install(h, SANDBOX_PORTAL)).statusCode).toBe(200);
  });
  afterEach(() => thaw());
  afterAll(async () => h.close());

  it('auto-sends of one millisecond, 3 a page: each once, newest first; ones recorded between pages change nothing', async () => {
    freeze();
    const made: string[] = [];
    for (let i = 0; i < 10; i++) made.push(await contactCreated());
    for (let i = 0; i < 2; i++) await contactCreated(SANDBOX_PORTAL);
    const walked = await walk(autoSends, 'auto_sends', 3, () => contactCreated());
    thaw();
    expect(walked.map((a) => a.object_id)).toEqual([...made].reverse());
    expect((await walk(`${autoSends}?status=skipped`, 'auto_sends', 4)).map((a) => a.object_id).slice(-10)).toEqual([...made].reverse());
  });

  it('held actions of one millisecond, 2 a page, with and without a state filter', async () => {
    freeze();
    const made: string[] = [];
    for (let i = 0; i < 7; i++) made.push(await held());
    await held(SANDBOX_PORTAL);
    const walked = await walk(heldActions, 'held_actions', 2, () => held());
    expect(walked.map((a) => a.callback_id)).toEqual([...made].reverse());
    const heldOnly = await walk(`${heldActions}?state=held`, 'held_actions', 3);
    thaw();
    expect(heldOnly.map((a) => a.callback_id).slice(-7)).toEqual([...made].reverse());
  });

  it("refuses a made-up cursor, another list's, another portal's, a changed or a cut-short one with 1002", async () => {
    for (let i = 0; i < 2; i++) await contactCreated(SANDBOX_PORTAL);
    const own = (await h.t.api('GET', `${autoSends}?limit=1`)).json().next_cursor as string;
    const otherPortal = (await h.t.api('GET', `/api/v1/integrations/hubspot/${SANDBOX_PORTAL}/auto-sends?limit=1`)).json().next_cursor as string;
    const heldCursor = (await h.t.api('GET', `${heldActions}?limit=1`)).json().next_cursor as string;
    const events = (await h.t.api('GET', '/api/v1/events?limit=1', undefined, { tenant: 'demo' })).json().next_cursor;
    expect([own, otherPortal, heldCursor].every((c) => typeof c === 'string')).toBe(true);

    // What the cursor was before: the last row's id in the clear; and anything else.
    const lastId = (await h.t.testStore.store.hubspot.listAutoSends((await h.t.testStore.store.tenants.getBySlug('demo'))!.id, String(PORTAL), { limit: 1 }))[0]!.id;
    for (const made of [lastId, 'abc', 'zzz', 'hsa_']) await refused(`${autoSends}?cursor=${made}`);
    for (const made of [lastId.replace('hsa_', 'hsw_'), 'abc']) await refused(`${heldActions}?cursor=${made}`);
    expect(await refused(`${autoSends}?cursor=${otherPortal}`)).toMatch(/another project, chat or portal/);
    expect(await refused(`${autoSends}?cursor=${heldCursor}`)).toMatch(/held-actions/);
    expect(await refused(`${heldActions}?cursor=${own}`)).toMatch(/auto-sends/);
    if (events) await refused(`${autoSends}?cursor=${events}`);
    await refused(`${autoSends}?cursor=${own.slice(0, -3)}`);
    const text = Buffer.from(own, 'base64url').toString('utf8');
    await refused(`${autoSends}?cursor=${Buffer.from(text.replace(/hsa_(\w)/, (_, c) => `hsa_${c === '0' ? '1' : '0'}`)).toString('base64url')}`);
    for (const limit of ['0', '201', 'abc', '1.5']) await refused(`${autoSends}?limit=${limit}`);
    // Its own cursor pages on, to a last page with next_cursor null.
    expect((await h.t.api('GET', `${autoSends}?limit=1&cursor=${own}`)).statusCode).toBe(200);
  });
});
