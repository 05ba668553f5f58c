/**
 * What the console polls, against a project with many chats: the chat list (GET /api/v1/chats,
 * every 10 s with each page loaded) -- the first page (30, as the console reads it), the next
 * page through its cursor and three searches (matching no chat, one, every one) -- and the
 * overview (GET /api/v1/stats, 30 days, every 30 s). 2,000 / 10,000 / 50,000 chats, one begun
 * every 10 minutes (50,000 is a year), 4 messages each, and one busy chat of 5,000; then with a chat that got 5,000 messages since all
 * the others. And the event log filtered to its failed events (one in 10,000; 4 events a chat),
 * and the dev inbox's poll (GET /api/v1/dev-inbox, every 5 s on the Developers screen) when its
 * 10 events are the project's first.
 * On SQLite a read blocks the event loop for as long as it takes. SQLite (a file)
 * and PostgreSQL. Reported, no target: none of these may grow with the chats.
 *   npx tsx bench/console-reads.ts
 */
import { sql } from 'kysely';
import type { Store } from '../src/store/index.js';
import { benchTenant, onSqliteThenPostgres } from './lib/stores.js';
import { testClock } from '../src/clock.js';
import { chatList } from '../src/domain/messaging/chat-list.js';
import { statsService } from '../src/domain/stats/overview.js';
import { eventsService } from '../src/domain/events/service.js';

const SIZES = [2_000, 10_000, 50_000];
const PER_CHAT = 4;
const BUSY = 5_000;
const PAGE = 30;
const CHAT_EVERY = 600_000;
/** The project's dev inbox got its first events, before it went live. */
const DEV_INBOX = 10;

async function measure(label: string, store: Store) {
  const db = store.database.db;
  const tenant = await benchTenant(store);
  const list = chatList({ store });
  const tenantRow = (await store.tenants.getById(tenant.id))!;
  // Only its dev inbox is read: no delivery is attempted.
  const eventLog = eventsService({ store, clock: testClock(), attempt: (() => Promise.reject(new Error('no delivery here'))) as never });
  let made = 0;
  let messages = 0;
  const chatId = (i: number) => `lead-${String(i).padStart(8, '0')}`;
  const insertMessages = async (rows: { chat: string; at: number }[]) => {
    for (let r = 0; r < rows.length; r += 500) {
      await db
        .insertInto('messages')
        .values(rows.slice(r, r + 500).map(({ chat, at }) => {
          const n = messages++;
          return {
            id: `msg_${String(n).padStart(10, '0')}`, tenant_id: tenant.id, chat_id: chat, line_id: 'line-1', direction: n % 2 ? ('inbound' as const) : ('outbound' as const),
            sender_handle: null, parts: JSON.stringify([{ type: 'text', value: `message ${n}` }]), effect: null, status: 'delivered' as const, provider_guid: `guid-${n}`,
            first_touch: 0, error_code: null, sent_at: at, delivered_at: at, read_at: null, edited_at: null,
          };
        }))
        .execute();
    }
  };
  /** `n` more chats, each with its lead and PER_CHAT messages (the first `busy` messages go to chat 0), in time order. */
  const add = async (n: number, busy = 0) => {
    for (let from = 0; from < n; from += 500) {
      const ids = Array.from({ length: Math.min(500, n - from) }, () => made++);
      await db.insertInto('leads').values(ids.map((i) => ({ id: chatId(i), tenant_id: tenant.id, handle: `+1415${String(i).padStart(7, '0')}`, created_at: i * CHAT_EVERY }))).execute();
      await db
        .insertInto('chats')
        .values(ids.map((i) => ({ id: chatId(i), tenant_id: tenant.id, is_group: 0, lead_id: chatId(i), line_id: 'line-1', convo_id: `convo-${i}`, chat_key: null, display_name: null, created_at: i * CHAT_EVERY })))
        .execute();
      await insertMessages(ids.flatMap((i) => Array.from({ length: i === 0 ? busy : PER_CHAT }, (_, k) => ({ chat: chatId(i), at: i * CHAT_EVERY + k * 1000 }))));
    }
  };
  let events = 0;
  /** Events up to `n` in all (one per message here): the first DEV_INBOX for the dev inbox, then one in 10,000 failed. */
  const addEvents = async (n: number) => {
    const payload = JSON.stringify({ type: 'message.received', data: { message: { parts: [{ type: 'text', value: 'x'.repeat(300) }] } } });
    while (events < n) {
      const rows = Array.from({ length: Math.min(1000, n - events) }, () => {
        const i = events++;
        const devInbox = i < DEV_INBOX;
        const status = devInbox ? ('dev_inbox' as const) : i % 10_000 === 17 ? ('failed' as const) : ('delivered' as const);
        return { id: `evt_${String(i).padStart(10, '0')}`, tenant_id: tenant.id, type: 'message.received', event_id: `e:${i}`, lead_id: null, convo_id: null, payload, status, dev_inbox: devInbox ? 1 : 0, delivered_at: i, created_at: i };
      });
      await db.insertInto('events').values(rows).execute();
    }
  };
  const time = async (fn: () => Promise<unknown>) => {
    await fn();
    const t = performance.now();
    for (let k = 0; k < 10; k++) await fn();
    return ((performance.now() - t) / 10).toFixed(2).padStart(7);
  };
  for (const size of SIZES) {
    await add(size - made, made === 0 ? BUSY : 0);
    await addEvents(size * PER_CHAT);
    if (store.database.dialect === 'postgres') await sql`analyze`.execute(db);
    // The overview as of the last chat's start: the last 30 days hold ~4,300 chats' messages.
    const stats = statsService({ store, clock: testClock(made * CHAT_EVERY - Date.now()) });
    const first = await list.page(tenant.id, { limit: PAGE });
    if (first.entries.length !== PAGE || first.entries[0]!.chat.id !== chatId(made - 1)) throw new Error('first page is not the newest chats');
    const cursor = first.nextCursor!;
    console.log(
      `${label.padEnd(10)} ${String(size).padStart(6)} chats: first page ${await time(() => list.page(tenant.id, { limit: PAGE }))} ms, next page ${await time(() => list.page(tenant.id, { limit: PAGE, cursor }))} ms, searches: none matches ${await time(() => list.page(tenant.id, { limit: PAGE, search: '555123' }))} ms, one chat ${await time(() => list.page(tenant.id, { limit: PAGE, search: '0001234' }))} ms, every chat ${await time(() => list.page(tenant.id, { limit: PAGE, search: '+1415' }))} ms, overview ${await time(() => stats.overview(tenantRow, 30))} ms, failed events ${await time(() => store.events.listEvents(tenant.id, { status: 'failed' }, 51))} ms, dev inbox poll ${await time(() => eventLog.devInbox(tenantRow, { sinceMs: DEV_INBOX - 1, limit: 50 }))} ms`,
    );
  }
  await insertMessages(Array.from({ length: BUSY }, (_, k) => ({ chat: chatId(1), at: made * CHAT_EVERY + k })));
  if (store.database.dialect === 'postgres') await sql`analyze`.execute(db);
  const first = await list.page(tenant.id, { limit: PAGE });
  if (first.entries[0]!.chat.id !== chatId(1) || first.entries[1]!.chat.id !== chatId(made - 1)) throw new Error('first page is not the busy chat, then the newest');
  console.log(`${label.padEnd(10)} ${String(made).padStart(6)} chats, the latest ${BUSY} messages in one: first page ${await time(() => list.page(tenant.id, { limit: PAGE }))} ms`);
}

await onSqliteThenPostgres(measure);
