/**
 * Walking the cursor lists (events, chats, a chat's messages) page by page with next_cursor, on
 * SQLite and PostgreSQL: every row once, in the documented order, also when many rows share one
 * millisecond (Date frozen while they are made) and when rows arrive between two page reads;
 * next_cursor null on the last page itself; filters that hold on every page; and a cursor that is
 * not this list's own (another list, project or chat; changed; cut short) or a bad limit is
 * 400 / 1002 with a message saying so, never a 500 and never another project's rows.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { STORE_KINDS } from '../support/stores.js';
import { prepareSandbox } from '../support/messaging.js';

let seq = 0;
const newHandle = () => `+1650557${String(1000 + (seq++ % 9000)).padStart(4, '0')}`;

/** Date (and so the test clock and every id) stands still until `thaw`. */
const freeze = () => vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
const thaw = () => vi.useRealTimers();

/** Code-unit order, as both stores compare the ids (SQLite's binary collation, PostgreSQL's "C"). */
const desc = (a: string, b: string) => (a < b ? 1 : a > b ? -1 : 0);

/** A message's text (its first text part). */
const textOf = (m: { parts?: { type: string; value?: string }[] } | null | undefined) => m?.parts?.find((p) => p.type === 'text')?.value;

interface Walk<T> {
  pages: T[][];
  /** next_cursor of each page */
  cursors: (string | null)[];
}

describe.each(STORE_KINDS)('list paging (%s)', (kind) => {
  let t: TestApp;
  /** Project B: another account's project with a line of its own. */
  let other: { secret: string; tenant: string; line: string };
  const asDemo = { tenant: 'demo' };

  const inbound = (body: Record<string, unknown>, line = t.demo.phone_line_ids[0]) => t.admin('POST', `/admin/v1/lines/${line}/simulate/inbound`, body);
  async function receive(body: Record<string, unknown>, line?: string) {
    const res = await inbound(body, line);
    expect(res.statusCode, res.body).toBe(202);
  }

  async function walk<T>(url: string, key: string, limit: number, opts: { as?: { secret?: string; tenant?: string }; between?: (page: number) => Promise<void> } = {}): Promise<Walk<T>> {
    const w: Walk<T> = { pages: [], cursors: [] };
    let cursor: string | null = null;
    do {
      const sep = url.includes('?') ? '&' : '?';
      const res = await t.api('GET', `${url}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, undefined, opts.as ?? asDemo);
      expect(res.statusCode, res.body).toBe(200);
      w.pages.push(res.json()[key]);
      cursor = res.json().next_cursor;
      w.cursors.push(cursor);
      if (cursor) await opts.between?.(w.pages.length);
    } while (cursor && w.pages.length < 200);
    return w;
  }

  /** Pages of `limit` rows but the last, which holds the rest and alone has next_cursor null. */
  function expectPaged<T>(w: Walk<T>, total: number, limit: number) {
    const sizes = w.pages.map((p) => p.length);
    const full = Math.floor(total / limit);
    const rest = total % limit;
    expect(sizes).toEqual([...Array(full).fill(limit), ...(rest || total === 0 ? [rest] : [])]);
    expect(w.cursors.slice(0, -1).every((c) => typeof c === 'string')).toBe(true);
    expect(w.cursors[w.cursors.length - 1]).toBeNull();
  }

  async function refused(url: string, as: { secret?: string; tenant?: string } = asDemo) {
    const res = await t.api('GET', url, undefined, as);
    expect({ url, status: res.statusCode, code: res.json().error?.code }).toEqual({ url, status: 400, code: 1002 });
    return res.json().error.message as string;
  }

  /** Changes the decoded cursor (keeping it base64url), or cuts it short. */
  const tampered = (cursor: string, change: (text: string) => string) => Buffer.from(change(Buffer.from(cursor, 'base64url').toString('utf8'))).toString('base64url');
  const cutShort = (cursor: string) => cursor.slice(0, -4);

  beforeAll(async () => {
    t = await startTestApp(kind);
    await prepareSandbox(t);
    const acct = (await t.admin('POST', '/admin/v1/accounts', { name: 'B' })).json();
    expect((await t.admin('POST', '/admin/v1/tenants', { account_id: acct.account.id, slug: 'bee' })).statusCode).toBe(201);
    const line = await t.admin('POST', '/admin/v1/lines', { tenant: 'bee', phone_number: '+15550107777', driver: 'simulator' });
    expect(line.statusCode).toBe(201);
    other = { secret: acct.signing_secret, tenant: 'bee', line: line.json().phone_line.id };
    // Project B's own rows, which no cursor may bring into the demo project's pages.
    for (let i = 0; i < 3; i++) await receive({ from: newHandle(), text: `bee ${i}` }, other.line);
  });
  afterEach(() => thaw());
  afterAll(async () => t.close());

  describe('events', () => {
    type Ev = { id: string; lead_id: string; created_at: string; delivery: { status: string }; payload: { text: string } };
    let sameMs: string[];

    it('events of one millisecond, 4 a page: each once, newest first; events recorded between pages are newer and change nothing', async () => {
      freeze();
      for (let i = 0; i < 22; i++) await receive({ from: newHandle(), text: `burst ${i}` });
      const all = await walk<Ev>('/api/v1/events', 'events', 200);
      sameMs = all.pages.flat().filter((e) => e.payload.text?.startsWith('burst ')).map((e) => e.id);
      expect(sameMs).toHaveLength(22);
      expect(new Set(all.pages.flat().filter((e) => sameMs.includes(e.id)).map((e) => e.created_at)).size).toBe(1);
      const before = all.pages.flat().map((e) => e.id);
      expect(before).toEqual([...before].sort(desc));

      // Same millisecond still (Date frozen): new events between the page reads.
      let added = 0;
      const w = await walk<Ev>('/api/v1/events', 'events', 4, {
        between: async (page) => {
          if (page > 3) return;
          for (let i = 0; i < 2; i++) await receive({ from: newHandle(), text: `meanwhile ${added++}` });
        },
      });
      thaw();
      expect(w.pages.flat().map((e) => e.id)).toEqual(before);
      expectPaged(w, before.length, 4);
      // A fresh walk has them, first.
      const after = (await walk<Ev>('/api/v1/events', 'events', 200)).pages.flat();
      expect(after.slice(0, added).every((e) => e.payload.text.startsWith('meanwhile '))).toBe(true);
      expect(after.slice(added).map((e) => e.id)).toEqual(before);
    });

    it('next_cursor is null on the page that ends the list, also when it is exactly full', async () => {
      const total = (await walk<Ev>('/api/v1/events', 'events', 200)).pages.flat().length;
      for (const limit of [1, total, total - 1]) expectPaged(await walk<Ev>('/api/v1/events', 'events', limit), total, limit);
      expect((await t.api('GET', `/api/v1/events?limit=${total}`, undefined, asDemo)).json()).toMatchObject({ count: total, next_cursor: null });
    });

    it('filters hold on every page: status, type, lead_id, since', async () => {
      // A contact with several events, and events after a dev-inbox subscription (status dev_inbox, not failed).
      const from = newHandle();
      t.clock.advance(5_000);
      const since = new Date(t.clock.now()).toISOString();
      t.clock.advance(1);
      for (let i = 0; i < 5; i++) await receive({ from, text: `lead ${i}` });
      const sub = await t.api('POST', '/api/v1/webhook-subscriptions', { url: 'https://dev-inbox', events: ['message.received'] });
      expect(sub.statusCode).toBe(201);
      freeze();
      for (let i = 0; i < 4; i++) await receive({ from: i % 2 ? from : newHandle(), text: `inbox ${i}` });
      thaw();
      expect((await t.api('DELETE', `/api/v1/webhook-subscriptions/${sub.json().id}`)).statusCode).toBeLessThan(300);

      const all = (await walk<Ev>('/api/v1/events', 'events', 200)).pages.flat();
      const leadId = all.find((e) => e.payload.text === 'lead 0')!.lead_id;
      const cases: [string, (e: Ev) => boolean][] = [
        ['status=failed', (e) => e.delivery.status === 'failed'],
        ['status=dev_inbox', (e) => e.delivery.status === 'dev_inbox'],
        ['type=message.received', () => true],
        [`lead_id=${leadId}`, (e) => e.lead_id === leadId],
        [`since=${encodeURIComponent(since)}`, (e) => Date.parse(e.created_at) > Date.parse(since)],
        [`status=dev_inbox&lead_id=${leadId}&since=${encodeURIComponent(since)}`, (e) => e.delivery.status === 'dev_inbox' && e.lead_id === leadId],
      ];
      for (const [filter, keep] of cases) {
        const expected = all.filter(keep).map((e) => e.id);
        expect(expected.length, filter).toBeGreaterThan(1);
        const w = await walk<Ev>(`/api/v1/events?${filter}`, 'events', 2);
        expect(w.pages.flat().map((e) => e.id), filter).toEqual(expected);
        expectPaged(w, expected.length, 2);
      }
      expect(all.filter((e) => e.delivery.status === 'dev_inbox')).toHaveLength(4);
      expect(all.filter((e) => e.lead_id === leadId)).toHaveLength(7);
    });

    it('the dev inbox (since-paged, as decided): a page cut by limit inside a millisecond carries the rest of it, none skipped or repeated', async () => {
      const sub = await t.api('POST', '/api/v1/webhook-subscriptions', { url: 'https://dev-inbox', events: ['message.received'] });
      expect(sub.statusCode).toBe(201);
      t.clock.advance(5_000);
      const since = new Date(t.clock.now()).toISOString();
      t.clock.advance(1);
      freeze();
      for (let i = 0; i < 7; i++) await receive({ from: newHandle(), text: `inbox burst ${i}` });
      thaw();
      t.clock.advance(1);
      for (let i = 0; i < 2; i++) await receive({ from: newHandle(), text: `inbox after ${i}` });
      expect((await t.api('DELETE', `/api/v1/webhook-subscriptions/${sub.json().id}`)).statusCode).toBeLessThan(300);
      const texts: string[] = [];
      let from = since;
      for (let i = 0; i < 5; i++) {
        const page = (await t.api('GET', `/api/v1/dev-inbox?limit=3&since=${encodeURIComponent(from)}`, undefined, asDemo)).json();
        expect(page.count).toBe(page.events.length);
        texts.push(...page.events.map((e: Ev) => e.payload.text));
        if (page.events.length === 0) {
          expect(page.next_since).toBe(from);
          break;
        }
        from = page.next_since;
      }
      expect(texts).toEqual([...Array.from({ length: 7 }, (_, i) => `inbox burst ${i}`), 'inbox after 0', 'inbox after 1']);
    });

    it("refuses another list's, another project's, a changed or a cut-short cursor with 1002; never another project's events", async () => {
      const own = (await t.api('GET', '/api/v1/events?limit=2', undefined, asDemo)).json().next_cursor as string;
      const bees = (await t.api('GET', '/api/v1/events?limit=1', undefined, other)).json();
      expect(bees.next_cursor).toEqual(expect.any(String));
      const chats = (await t.api('GET', '/api/v1/chats?limit=1')).json().next_cursor as string;

      expect(await refused(`/api/v1/events?cursor=${bees.next_cursor}`)).toMatch(/another project/);
      expect(await refused(`/api/v1/events?cursor=${chats}`)).toMatch(/GET \/api\/v1\/chats/);
      // The last event id's last character, another valid one; a digit of the id's time.
      await refused(`/api/v1/events?cursor=${tampered(own, (s) => s.replace(/(evt_\w{25})(\w)/, (_, a, b) => a + (b === 'A' ? 'B' : 'A')))}`);
      await refused(`/api/v1/events?cursor=${tampered(own, (s) => s.replace(/evt_0/, 'evt_1'))}`);
      await refused(`/api/v1/events?cursor=${cutShort(own)}`);
      await refused(`/api/v1/events?cursor=${own}x`);
      await refused(`/api/v1/events?cursor=${encodeURIComponent(own + '==')}`);
      // The cursor this list gave before (the bare event id), and one naming an event of project B.
      const beeEvent = bees.events[0].id as string;
      await refused(`/api/v1/events?cursor=${Buffer.from(beeEvent).toString('base64url')}`);
      // Project B's own cursor still pages project B.
      const beePage = await t.api('GET', `/api/v1/events?limit=1&cursor=${bees.next_cursor}`, undefined, other);
      expect(beePage.statusCode).toBe(200);
      expect(beePage.json().events[0].payload.text).toMatch(/^bee /);
    });
  });

  describe('chats', () => {
    type Summary = { chat: { id: string; is_group: boolean }; last_activity_at: string; last_message: { id: string; parts: { type: string; value?: string }[] } | null };
    const order = (a: Summary, b: Summary) => Date.parse(b.last_activity_at) - Date.parse(a.last_activity_at) || desc(a.chat.id, b.chat.id);

    it('chats active in one millisecond (direct and groups), 3 a page: each once, newest activity first and then by id, on either store', async () => {
      freeze();
      for (let i = 0; i < 10; i++) await receive({ from: newHandle(), text: `chat ${i}` });
      for (let i = 0; i < 4; i++) await receive({ from: newHandle(), text: `group ${i}`, chat: { chat_key: `same-ms-${kind}-${i}`, handles: [newHandle(), newHandle()] } });
      thaw();
      const all = (await walk<Summary>('/api/v1/chats', 'chats', 200)).pages.flat();
      expect(all).toEqual([...all].sort(order));
      const top = all.slice(0, 14);
      expect(new Set(top.map((c) => c.last_activity_at)).size).toBe(1);
      expect(top.filter((c) => c.chat.is_group)).toHaveLength(4);
      for (const limit of [3, 1, 14]) {
        const w = await walk<Summary>('/api/v1/chats', 'chats', limit);
        expect(w.pages.flat().map((c) => c.chat.id)).toEqual(all.map((c) => c.chat.id));
        expectPaged(w, all.length, limit);
      }
    });

    it('a message to a chat while the list is walked: every chat still listed once, as it was when the walk began', async () => {
      const froms: string[] = [];
      for (let i = 0; i < 9; i++) {
        t.clock.advance(1_000);
        froms.push(newHandle());
        await receive({ from: froms[i]!, text: `walk ${i}` });
      }
      const before = (await walk<Summary>('/api/v1/chats', 'chats', 200)).pages.flat();
      let newChat = '';
      const w = await walk<Summary>('/api/v1/chats', 'chats', 3, {
        between: async (page) => {
          t.clock.advance(1_000);
          // The oldest chat not read yet moves to the top; one already read moves up again; a new one starts.
          if (page === 1) await receive({ from: froms[0]!, text: 'moved up' });
          if (page === 2) {
            await receive({ from: froms[8]!, text: 'again' });
            t.clock.advance(1);
            await receive({ from: (newChat = newHandle()), text: 'new chat' });
          }
        },
      });
      const walked = w.pages.flat();
      expect(walked.map((c) => c.chat.id)).toEqual(before.map((c) => c.chat.id));
      // As they were: the moved chat shows its message of then.
      expect(walked.find((c) => textOf(c.last_message) === 'walk 0')).toBeDefined();
      expect(walked.some((c) => textOf(c.last_message) === 'moved up' || textOf(c.last_message) === 'again' || textOf(c.last_message) === 'new chat')).toBe(false);
      expectPaged(w, before.length, 3);
      // A new walk shows the chats as they are now.
      const now = (await t.api('GET', '/api/v1/chats?limit=3')).json().chats as Summary[];
      expect(now.map((c) => textOf(c.last_message))).toEqual(['new chat', 'again', 'moved up']);
      expect(newChat).not.toBe('');
    });

    it('a search holds on every page', async () => {
      freeze();
      for (let i = 0; i < 7; i++) await receive({ from: `+1650558${String(100 + i).padStart(4, '0')}`, text: `search ${i}` });
      thaw();
      const w = await walk<Summary & { chat: { handles?: string[] } }>('/api/v1/chats?q=6505580', 'chats', 2);
      expect(w.pages.flat()).toHaveLength(7);
      expect(w.pages.flat().every((c) => textOf(c.last_message)?.startsWith('search '))).toBe(true);
      expectPaged(w, 7, 2);
    });

    it("refuses another list's, another project's, a changed or a cut-short cursor with 1002", async () => {
      const own = (await t.api('GET', '/api/v1/chats?limit=2')).json().next_cursor as string;
      const bee = (await t.api('GET', '/api/v1/chats?limit=1', undefined, other)).json().next_cursor as string;
      const events = (await t.api('GET', '/api/v1/events?limit=1', undefined, asDemo)).json().next_cursor as string;
      const chatId = (await t.api('GET', '/api/v1/chats?limit=1')).json().chats[0].chat.id as string;
      const messages = (await t.api('GET', `/api/v1/chats/${chatId}/messages?limit=1`)).json().next_cursor;
      expect(await refused(`/api/v1/chats?cursor=${bee}`)).toMatch(/another project/);
      expect(await refused(`/api/v1/chats?cursor=${events}`)).toMatch(/GET \/api\/v1\/events/);
      if (messages) await refused(`/api/v1/chats?cursor=${messages}`);
      await refused(`/api/v1/chats?cursor=${cutShort(own)}`);
      // The activity time one millisecond off; the id changed.
      await refused(`/api/v1/chats?cursor=${tampered(own, (s) => s.replace(/^ch\|(\d+)/, (_, ms) => `ch|${Number(ms) - 1}`))}`);
      await refused(`/api/v1/chats?cursor=${tampered(own, (s) => s.replace(/\|([0-9a-f])([^|]*)\|([^|]+)$/, (_, a, b, c) => `|${a === '0' ? '1' : '0'}${b}|${c}`))}`);
      // The form this list gave before (`<ms>|<id>`).
      await refused(`/api/v1/chats?cursor=${Buffer.from(`${Date.now()}|${chatId}`).toString('base64url')}`);
    });
  });

  describe("a chat's messages", () => {
    type Msg = { id: string; parts: { type: string; value?: string }[] };

    it('messages of one millisecond, 4 a page: each once, newest first; messages arriving between pages change nothing', async () => {
      const from = newHandle();
      freeze();
      for (let i = 0; i < 13; i++) await receive({ from, text: `msg ${i}` });
      const chat = ((await t.api('GET', '/api/v1/chats?limit=200')).json().chats as { chat: { id: string }; last_message: Msg | null }[]).find((c) => textOf(c.last_message) === 'msg 12')!.chat.id;
      const url = `/api/v1/chats/${chat}/messages`;
      const before = (await walk<Msg>(url, 'messages', 200)).pages.flat();
      expect(before.map(textOf)).toEqual(Array.from({ length: 13 }, (_, i) => `msg ${12 - i}`));
      expect(before.map((m) => m.id)).toEqual(before.map((m) => m.id).sort(desc));
      let n = 0;
      const w = await walk<Msg>(url, 'messages', 4, { between: async () => receive({ from, text: `later ${n++}` }) });
      thaw();
      expect(w.pages.flat().map((m) => m.id)).toEqual(before.map((m) => m.id));
      expectPaged(w, 13, 4);
    });

    it("refuses another chat's cursor, and another list's, with 1002", async () => {
      const [x, y] = [newHandle(), newHandle()];
      for (const from of [x, x, y, y]) await receive({ from, text: `two ${from}` });
      const chats = (await t.api('GET', '/api/v1/chats?limit=2')).json().chats as { chat: { id: string } }[];
      const [a, b] = chats.map((c) => c.chat.id);
      const first = (await t.api('GET', `/api/v1/chats/${a}/messages?limit=1`)).json().next_cursor as string;
      expect(first).toEqual(expect.any(String));
      expect(await refused(`/api/v1/chats/${b}/messages?cursor=${first}`)).toMatch(/another project, chat/);
      const chatsCursor = (await t.api('GET', '/api/v1/chats?limit=1')).json().next_cursor as string;
      expect(await refused(`/api/v1/chats/${a}/messages?cursor=${chatsCursor}`)).toMatch(/GET \/api\/v1\/chats,/);
      await refused(`/api/v1/chats/${a}/messages?cursor=${cutShort(first)}`);
      // The form this list gave before (`<ms>|<id>`), naming a message of the chat.
      const own = (await t.api('GET', `/api/v1/chats/${a}/messages`)).json().messages as Msg[];
      await refused(`/api/v1/chats/${a}/messages?cursor=${Buffer.from(`${Date.now()}|${own[0]!.id}`).toString('base64url')}`);
      expect((await t.api('GET', `/api/v1/chats/${a}/messages?limit=1&cursor=${first}`)).json().messages).toHaveLength(1);
    });
  });

  it('limit outside 1 to 200, or not an integer, is 1002 naming limit on every list', async () => {
    const chatId = (await t.api('GET', '/api/v1/chats?limit=1')).json().chats[0].chat.id as string;
    for (const list of ['/api/v1/events', '/api/v1/chats', `/api/v1/chats/${chatId}/messages`, '/api/v1/dev-inbox']) {
      for (const limit of ['0', '201', 'abc', '1.5', '-1', '']) {
        const message = await refused(`${list}?limit=${limit}`);
        expect(message).toMatch(/limit/);
      }
      expect((await t.api('GET', `${list}?limit=200`, undefined, asDemo)).statusCode).toBe(200);
    }
  });
});
