/**
 * Real stores for tests: SQLite in a temp file, or a fresh database on the
 * run's PostgreSQL server. Never a mock of our own store.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { openStore, type Store } from '../../src/store/index.js';

export const STORE_KINDS = ['sqlite', 'postgres'] as const;
export type StoreKind = (typeof STORE_KINDS)[number];

export interface TestStore {
  store: Store;
  kind: StoreKind;
  masterKey: Buffer;
  /** SQLite file path, or PostgreSQL URL of the test database. */
  location: string;
  cleanup(): Promise<void>;
}

/** Runs `text` as the run's PostgreSQL superuser, on `url`'s database (default: the server's own). */
export async function asPgAdmin(text: string, url = inject('pgUrl')): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(text);
  } finally {
    await c.end();
  }
}

/** A database of its own on the run's server; `locale` for one that is not the server's C locale. */
export async function createPgDatabase(options: { locale?: 'C.UTF-8' } = {}): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = inject('pgUrl');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}${options.locale ? ` template template0 locale '${options.locale}'` : ''}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export async function createTestStore(kind: StoreKind, masterKey = randomBytes(32)): Promise<TestStore> {
  if (kind === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-sqlite-'));
    const file = path.join(dir, 'blueline.sqlite');
    const store = await openStore({ sqlitePath: file, masterKey });
    return {
      store,
      kind,
      masterKey,
      location: file,
      async cleanup() {
        try {
          await store.close();
        } finally {
          fs.rmSync(dir, { recursive: true, force: true });
        }
      },
    };
  }
  const db = await createPgDatabase();
  const store = await openStore({ databaseUrl: db.url, masterKey });
  return {
    store,
    kind,
    masterKey,
    location: db.url,
    async cleanup() {
      await store.close();
      await db.drop();
    },
  };
}

/** Another connection to the same test database (as a second process would open). */
export async function joinTestStore(existing: TestStore): Promise<TestStore> {
  const store = await openStore({
    ...(existing.kind === 'sqlite' ? { sqlitePath: existing.location } : { databaseUrl: existing.location }),
    masterKey: existing.masterKey,
  });
  return { ...existing, store, cleanup: () => store.close() };
}
