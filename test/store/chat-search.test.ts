/**
 * A chat search finds what its handles and names say now, whatever wrote them: a lead's handle,
 * a group's participants (added and removed) and its name (renamed), in any case, in this
 * project only, with a LIKE wildcard taken literally. A search few chats match is answered from
 * trigram indexes (migration 033: on SQLite a table triggers keep, on PostgreSQL pg_trgm's GIN
 * indexes), made with the chats a database already holds when the migration runs. Both stores
 * answer alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase, createTestStore, STORE_KINDS, type TestStore } from '../support/stores.js';
import { randomBytes } from 'node:crypto';
import { openStore } from '../../src/store/index.js';
import { systemClock } from '../../src/clock.js';
import { accountsService } from '../../src/domain/accounts-tenants/service.js';
import { chatList } from '../../src/domain/messaging/chat-list.js';
import type { Store } from '../../src/store/index.js';
import * as m033 from '../../src/store/migrations/033_chat_search.js';

describe.each(STORE_KINDS)('chat search (%s)', (kind) => {
  let ts: TestStore;
  let store: Store;
  let one: string;
  let two: string;
  let n = 0;

  beforeAll(async () => {
    ts = await createTestStore(kind);
    store = ts.store;
    const accounts = accountsService({ store, clock: systemClock(), secretOverlapMs: 0, onChange: () => {} });
    const { account } = await accounts.createAccount({ name: 'Chat search', multi_tenant: true });
    one = (await accounts.createTenant({ account_id: account.id, slug: 'one' })).id;
    two = (await accounts.createTenant({ account_id: account.id, slug: 'two' })).id;
  });
  afterAll(async () => ts.cleanup());

  const direct = async (tenantId: string, handle: string) => {
    const id = `lead-${n++}`;
    await store.chats.upsertLead({ id, tenant_id: tenantId, handle, created_at: n });
    await store.chats.ensureChat({ id, tenant_id: tenantId, is_group: false, lead_id: id, line_id: null, convo_id: `convo-${id}`, chat_key: null, display_name: null, created_at: n, left_at: null });
    return id;
  };
  const group = async (tenantId: string, name: string | null, handles: string[]) => {
    const id = `ch_${n++}`;
    await store.chats.ensureChat({ id, tenant_id: tenantId, is_group: true, lead_id: null, line_id: null, convo_id: `convo-${id}`, chat_key: `key-${id}`, display_name: name, created_at: n, left_at: null });
    for (const h of handles) await store.chats.addParticipant(id, h, n);
    return id;
  };
  const search = async (tenantId: string, q: string) =>
    (await chatList({ store }).page(tenantId, { limit: 100, search: q })).entries.map((e) => e.chat.id).sort();

  it('finds chats by a lead, a participant and a group name, in any case, in this project only', async () => {
    const ann = await direct(one, 'ann@example.com');
    const bob = await direct(one, '+14155550123');
    const team = await group(one, 'Acme Sales Team', ['+14155550123', '+442079460000']);
    await direct(two, 'ann@example.com');
    await group(two, 'Acme Sales Team', ['+442079460000']);

    expect(await search(one, 'ANN@EXAMPLE')).toEqual([ann]);
    expect(await search(one, '5550123')).toEqual([bob, team].sort());
    expect(await search(one, '2079460')).toEqual([team]);
    expect(await search(one, 'sales tea')).toEqual([team]);
    expect(await search(one, 'example.org')).toEqual([]);
  });

  it('follows renames and the participants who join and leave', async () => {
    const crew = await group(one, 'Harbor Crew', ['+15105550100']);
    expect(await search(one, 'harbor')).toEqual([crew]);

    await store.chats.setDisplayName(crew, 'Dock Workers');
    expect(await search(one, 'harbor')).toEqual([]);
    expect(await search(one, 'dock work')).toEqual([crew]);
    await store.chats.setDisplayName(crew, null);
    expect(await search(one, 'dock work')).toEqual([]);

    expect(await search(one, '5105550199')).toEqual([]);
    await store.chats.addParticipant(crew, '+15105550199', n);
    expect(await search(one, '5105550199')).toEqual([crew]);
    await store.chats.removeParticipant(crew, '+15105550100');
    expect(await search(one, '5105550100')).toEqual([]);
    expect(await search(one, '5105550199')).toEqual([crew]);
  });

  it('finds a number typed or pasted with spaces, dashes (of any kind), dots or brackets', async () => {
    const dana = await direct(one, '+13125550188');
    const desk = await group(one, 'Front Desk', ['+13125550189', 'desk@example.com']);
    const season = await group(one, 'Q3-2025 Renewals', ['+13125550190']);
    expect(await search(one, '(312) 555-0188')).toEqual([dana]);
    expect(await search(one, '+1 312 555 0188')).toEqual([dana]);
    expect(await search(one, '312.555.0189')).toEqual([desk]);
    expect(await search(one, '312\u2011555\u20130188')).toEqual([dana]); // a non-breaking hyphen, an en dash
    expect(await search(one, '312-555-01')).toEqual([dana, desk, season].sort());
    // a group name with the same punctuation is still found as typed
    expect(await search(one, '3-2025')).toEqual([season]);
    // punctuation elsewhere is not dropped
    expect(await search(one, 'desk @example')).toEqual([]);
    expect(await search(one, '(312) 555-0199')).toEqual([]);
  });

  it('matches a name or handle written with capitals beyond ASCII as it is written', async () => {
    const crew = await group(one, 'Équipe Ventes Nord', ['+15105550400']);
    const jurgen = await direct(one, 'JÜRGEN@example.de');
    // As written, by a piece of it, and through the scan a two-letter search takes.
    expect(await search(one, 'Équipe Ventes')).toEqual([crew]);
    expect(await search(one, 'ÉQUIPE')).toEqual([crew]);
    expect(await search(one, 'JÜRGEN@')).toEqual([jurgen]);
    expect(await search(one, 'ÜR')).toEqual([jurgen]);
    if (kind === 'sqlite') {
      // SQLite folds every letter's case. (A PostgreSQL database folds as its locale does: under
      // the C locale of these tests ASCII letters only; below, a UTF-8 database folds them all.)
      expect(await search(one, 'équipe')).toEqual([crew]);
      expect(await search(one, 'jürgen@')).toEqual([jurgen]);
      expect(await search(one, 'ür')).toEqual([jurgen]);
      // the two letters whose lower case is ASCII: the Kelvin sign (U+212A) and İ (U+0130)
      const kelvin = await group(one, '\u212Aelvin Lab', ['+15105550401']);
      const istanbul = await group(one, '\u0130stanbul Office', ['+15105550402']);
      expect(await search(one, 'kelvin')).toEqual([kelvin]);
      expect(await search(one, 'kE')).toEqual([kelvin]);
      expect(await search(one, 'i\u0307stanbul')).toEqual([istanbul]);
    }
  });

  it('takes % and _ (and quotes, AND, *) literally, and searches of one or two characters', async () => {
    const half = await group(one, '50% off', ['+15105550300']);
    await group(one, '500 off', ['+15105550301']);
    const under = await direct(one, 'a_b@example.com');
    await direct(one, 'axb@example.com');
    expect(await search(one, '50%')).toEqual([half]);
    expect(await search(one, 'a_b')).toEqual([under]);
    expect(await search(one, '%')).toEqual([half]);
    expect(await search(one, '_')).toEqual([under]);
    expect(await search(one, 'zq')).toEqual([]);
    // and what the SQLite index's query language would read as its own: quotes, operators, stars
    const quoted = await group(one, 'Say "Hi" AND Bye*', ['+15105550302']);
    expect(await search(one, '"hi" and')).toEqual([quoted]);
    expect(await search(one, 'bye*')).toEqual([quoted]);
    expect(await search(one, 'hi" or')).toEqual([]);
  });

  it('finds the chats a database held before the index was made', async () => {
    const db = store.database.db;
    await m033.down(db as never);
    const old = await direct(one, '+16175550777');
    const oldGroup = await group(one, 'Old Friends', ['+16175550778']);
    await m033.up(db as never);
    expect(await search(one, '6175550777')).toEqual([old]);
    expect(await search(one, '6175550778')).toEqual([oldGroup]);
    expect(await search(one, 'old friend')).toEqual([oldGroup]);
    // and keeps up after it
    const later = await direct(one, '+16175550779');
    expect(await search(one, '617555077')).toEqual([old, oldGroup, later].sort());
  });
});

describe('chat search (postgres, a database with a UTF-8 locale)', () => {
  it('folds the case of every letter, as SQLite does', async () => {
    const pgDb = await createPgDatabase({ locale: 'C.UTF-8' });
    const store = await openStore({ databaseUrl: pgDb.url, masterKey: randomBytes(32) });
    try {
      const accounts = accountsService({ store, clock: systemClock(), secretOverlapMs: 0, onChange: () => {} });
      const { account } = await accounts.createAccount({ name: 'Chat search UTF-8', multi_tenant: false });
      const tenant = (await accounts.createTenant({ account_id: account.id, slug: 'utf8' })).id;
      await store.chats.ensureChat({ id: 'ch_crew', tenant_id: tenant, is_group: true, lead_id: null, line_id: null, convo_id: 'convo-crew', chat_key: 'key-crew', display_name: 'Équipe Ventes Nord', created_at: 1, left_at: null });
      await store.chats.addParticipant('ch_crew', '+15105550400', 1);
      await store.chats.upsertLead({ id: 'lead-jurgen', tenant_id: tenant, handle: 'JÜRGEN@example.de', created_at: 2 });
      await store.chats.ensureChat({ id: 'lead-jurgen', tenant_id: tenant, is_group: false, lead_id: 'lead-jurgen', line_id: null, convo_id: 'convo-jurgen', chat_key: null, display_name: null, created_at: 2, left_at: null });
      const search = async (q: string) => (await chatList({ store }).page(tenant, { limit: 100, search: q })).entries.map((e) => e.chat.id);

      expect(await search('équipe')).toEqual(['ch_crew']);
      expect(await search('ÉQUIPE VENTES')).toEqual(['ch_crew']);
      expect(await search('jürgen@')).toEqual(['lead-jurgen']);
      expect(await search('ür')).toEqual(['lead-jurgen']);
    } finally {
      await store.close();
      await pgDb.drop();
    }
  });
});
