/**
 * A PostgreSQL role that may not create pg_trgm (no CREATE privilege on the database, as many
 * managed or shared servers hand out) still migrates: migration 033 goes on without the chat
 * search's indexes, and a search finds what it found before, by reading every chat.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/index.js';
import { systemClock } from '../../src/clock.js';
import { accountsService } from '../../src/domain/accounts-tenants/service.js';
import { chatList } from '../../src/domain/messaging/chat-list.js';
import { asPgAdmin as asAdmin, createPgDatabase } from '../support/stores.js';

let database: Awaited<ReturnType<typeof createPgDatabase>>;
let store: Store | undefined;
const role = `r_${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  database = await createPgDatabase();
  await asAdmin(`create role ${role} login password 'no-extensions'`);
  // Tables in public, but not the database's CREATE privilege a trusted extension needs.
  await asAdmin(`grant create on schema public to ${role}`, database.url);
  await asAdmin(`revoke create on database ${new URL(database.url).pathname.slice(1)} from public`, database.url);
});
afterAll(async () => {
  await store?.close();
  await database?.drop();
  await asAdmin(`drop owned by ${role}`).catch(() => {});
  await asAdmin(`drop role if exists ${role}`);
});

it('migrates without the search indexes, and a search still finds its chats', async () => {
  const url = new URL(database.url);
  url.username = role;
  url.password = 'no-extensions';
  store = await openStore({ databaseUrl: url.toString(), masterKey: randomBytes(32) });
  const db = store.database.db;
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_indexes where indexname like 'chat_search%'`.execute(db);
  expect(rows[0]!.n).toBe(0);
  expect((await sql<{ n: number }>`select count(*)::int as n from pg_extension where extname = 'pg_trgm'`.execute(db)).rows[0]!.n).toBe(0);

  const accounts = accountsService({ store, clock: systemClock(), secretOverlapMs: 0, onChange: () => {} });
  const { account } = await accounts.createAccount({ name: 'No trgm', multi_tenant: true });
  const tenantId = (await accounts.createTenant({ account_id: account.id, slug: 'one' })).id;
  await store.chats.upsertLead({ id: 'lead-1', tenant_id: tenantId, handle: '+14155550123', created_at: 1 });
  await store.chats.ensureChat({ id: 'lead-1', tenant_id: tenantId, is_group: false, lead_id: 'lead-1', line_id: null, convo_id: 'c-1', chat_key: null, display_name: null, created_at: 1, left_at: null });
  await store.chats.ensureChat({ id: 'ch_1', tenant_id: tenantId, is_group: true, lead_id: null, line_id: null, convo_id: 'c-2', chat_key: 'k', display_name: 'Harbor Crew', created_at: 2, left_at: null });
  await store.chats.addParticipant('ch_1', '+15105550100', 2);
  const search = async (q: string) => (await chatList({ store: store! }).page(tenantId, { limit: 10, search: q })).entries.map((e) => e.chat.id);
  expect(await search('4155550123')).toEqual(['lead-1']);
  expect(await search('HARBOR')).toEqual(['ch_1']);
  expect(await search('5105550100')).toEqual(['ch_1']);
  expect(await search('nobody')).toEqual([]);
});
