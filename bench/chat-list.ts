/**
 * The chat list (GET /api/v1/chats, the console's conversation list, polled every 10 s with
 * each page it has loaded): the first page (30, as the console reads it) and the next page
 * through its cursor, against a project with 2,000 / 10,000 / 50,000 chats of 4 messages each
 * and one busy chat of 5,000, on SQLite (a file) and PostgreSQL. On SQLite the read blocks the
 * event loop for as long as it takes. Reported, no target: neither page may grow with the chats.
 *   npx tsx bench/chat-list.ts
 */
import { sql } from 'kysely';
import type { Store } from '../src/store/index.js';
import { onSqliteThenPostgres } from './lib/stores.js';
import { systemClock } from '../src/clock.js';
import { accountsService } from '../src/domain/accounts-tenants/service.js';
import { chatList } from '../src/domain/messaging/chat-list.js';

const SIZES = [2_000, 10_000, 50_000];
const PER_CHAT = 4;
const BUSY = 5_000;
const PAGE = 30;

async function measure(label: string, store: Store) {
  const db = store.database.db;
  const accounts = accountsService({ store, clock: systemClock(), secretOverlapMs: 0, onChange: () => {} });
  const { account } = await accounts.createAccount({ name: 'Bench' });
  const tenant = await accounts.createTenant({ account_id: account.id, slug: 'bench' });
  await db.insertInto('phone_lines').values({ id: 'line-1', tenant_id: tenant.id, phone_number: '+14155550000', service: 'imessage', driver: 'simulator', driver_config_enc: '', capabilities: '[]', is_active: 1, created_at: 0 }).execute();
  const list = chatList({ store });
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
      await db.insertInto('leads').values(ids.map((i) => ({ id: chatId(i), tenant_id: tenant.id, handle: `+1415${String(i).padStart(7, '0')}`, created_at: i * 1000 }))).execute();
      await db
        .insertInto('chats')
        .values(ids.map((i) => ({ id: chatId(i), tenant_id: tenant.id, is_group: 0, lead_id: chatId(i), line_id: 'line-1', convo_id: `convo-${i}`, chat_key: null, display_name: null, created_at: i * 1000 })))
        .execute();
      await insertMessages(ids.flatMap((i) => Array.from({ length: i === 0 ? busy : PER_CHAT }, (_, k) => ({ chat: chatId(i), at: i * 1000 + k }))));
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
    if (store.database.dialect === 'postgres') await sql`analyze`.execute(db);
    const first = await list.page(tenant.id, { limit: PAGE });
    if (first.entries.length !== PAGE || first.entries[0]!.chat.id !== chatId(made - 1)) throw new Error('first page is not the newest chats');
    const cursor = first.nextCursor!;
    console.log(
      `${label.padEnd(10)} ${String(size).padStart(6)} chats: first page ${await time(() => list.page(tenant.id, { limit: PAGE }))} ms, next page ${await time(() => list.page(tenant.id, { limit: PAGE, cursor }))} ms, a search ${await time(() => list.page(tenant.id, { limit: PAGE, search: '555123' }))} ms`,
    );
  }
  await insertMessages(Array.from({ length: BUSY }, (_, k) => ({ chat: chatId(1), at: made * 1000 + k })));
  if (store.database.dialect === 'postgres') await sql`analyze`.execute(db);
  const first = await list.page(tenant.id, { limit: PAGE });
  if (first.entries[0]!.chat.id !== chatId(1) || first.entries[1]!.chat.id !== chatId(made - 1)) throw new Error('first page is not the busy chat, then the newest');
  console.log(`${label.padEnd(10)} ${String(made).padStart(6)} chats, the latest ${BUSY} messages in one: first page ${await time(() => list.page(tenant.id, { limit: PAGE }))} ms`);
}

await onSqliteThenPostgres(measure);
