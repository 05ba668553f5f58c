/**
 * A PostgreSQL role that may not create pg_trgm (no CREATE privilege on the database, as many
 * managed or shared servers hand out) still migrates: migration 033 goes on without the chat
 * search's indexes, and a search finds what it found before, by reading every chat. The service
 * says so at every start, and the statements the README gives add the indexes afterwards.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/index.js';
import { systemClock } from '../../src/clock.js';
import { accountsService } from '../../src/domain/accounts-tenants/service.js';
import { chatList } from '../../src/domain/messaging/chat-list.js';
import { asPgAdmin as asAdmin, createPgDatabase } from '../support/stores.js';
import { projectRoot, SERVICE_TEST_MS, startServerProcess } from '../support/server-process.js';

const databases: Awaited<ReturnType<typeof createPgDatabase>>[] = [];
const stores: Store[] = [];
const role = `r_${randomBytes(4).toString('hex')}`;
const masterKey = randomBytes(32);

/** A new database where the role may create tables but not extensions; its URL as the role. */
async function restrictedDatabase(): Promise<{ admin: string; asRole: string }> {
  const database = await createPgDatabase();
  databases.push(database);
  // Tables in public, but not the database's CREATE privilege a trusted extension needs.
  await asAdmin(`grant create on schema public to ${role}`, database.url);
  const url = new URL(database.url);
  url.username = role;
  url.password = 'no-extensions';
  return { admin: database.url, asRole: url.toString() };
}
const open = async (url: string) => {
  const store = await openStore({ databaseUrl: url, masterKey });
  stores.push(store);
  return store;
};

let first: { admin: string; asRole: string };
beforeAll(async () => {
  await asAdmin(`create role ${role} login password 'no-extensions'`);
  first = await restrictedDatabase();
});
afterAll(async () => {
  for (const s of stores) await s.close();
  for (const d of databases) await d.drop();
  await asAdmin(`drop role if exists ${role}`);
});

it('migrates without the search indexes, a search still finds its chats, and the README\'s statements add them', async () => {
  const store = await open(first.asRole);
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
  const search = async (q: string) => (await chatList({ store }).page(tenantId, { limit: 10, search: q })).entries.map((e) => e.chat.id);
  expect(await search('4155550123')).toEqual(['lead-1']);
  expect(await search('HARBOR')).toEqual(['ch_1']);
  expect(await search('5105550100')).toEqual(['ch_1']);
  expect(await search('nobody')).toEqual([]);
  expect(await store.chatList.searchIndexed()).toBe(false);

  // What the README's "Running on PostgreSQL" has a superuser run; then a restart.
  const readme = fs.readFileSync(path.join(projectRoot, 'README.md'), 'utf8');
  const statements = /```sql\n(CREATE EXTENSION pg_trgm;[^`]*)```/.exec(readme)?.[1];
  expect(statements, 'the README gives the statements').toBeDefined();
  await asAdmin(statements!, first.admin);
  const restarted = await open(first.asRole);
  expect(await restarted.chatList.searchIndexed()).toBe(true);
  const again = async (q: string) => (await chatList({ store: restarted }).page(tenantId, { limit: 10, search: q })).entries.map((e) => e.chat.id);
  expect(await again('4155550123')).toEqual(['lead-1']);
  expect(await again('harbor')).toEqual(['ch_1']);
  expect(await again('5105550100')).toEqual(['ch_1']);
});

it('says so in its log at every start', async () => {
  const { asRole } = await restrictedDatabase();
  const service = await startServerProcess({
    prefix: 'blueline-no-trgm-',
    captureStdout: true,
    env: { DATABASE_URL: asRole, BLUELINE_MASTER_KEY: masterKey.toString('base64'), BLUELINE_DEMO: '0' },
  });
  try {
    const warning = () => service.stdout().split('\n').find((l) => l.includes('chat search has no trigram index'));
    for (let i = 0; i < 50 && !warning(); i++) await new Promise((r) => setTimeout(r, 100));
    expect(JSON.parse(warning()!)).toMatchObject({ level: 40, msg: expect.stringContaining('Running on PostgreSQL') });
  } finally {
    service.cleanup();
  }
}, SERVICE_TEST_MS);
