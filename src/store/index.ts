/**
 * The typed store: one object the domain receives, the same over SQLite and
 * PostgreSQL. Repositories own row mapping and encryption of secrets at rest.
 */
import { openDatabase, type Database, type OpenOptions } from './db.js';
import { accountsRepo } from './accounts.js';
import { tenantsRepo } from './tenants.js';
import { linesRepo } from './lines.js';
import { secretBox } from './secret-box.js';

export interface Store {
  database: Database;
  accounts: ReturnType<typeof accountsRepo>;
  tenants: ReturnType<typeof tenantsRepo>;
  lines: ReturnType<typeof linesRepo>;
  close(): Promise<void>;
}

export async function openStore(opts: OpenOptions & { masterKey: Buffer }): Promise<Store> {
  const database = await openDatabase(opts);
  const box = secretBox(opts.masterKey);
  return {
    database,
    accounts: accountsRepo(database.db, box),
    tenants: tenantsRepo(database.db),
    lines: linesRepo(database.db, box),
    close: () => database.close(),
  };
}

export type { Account } from './accounts.js';
export type { Tenant } from './tenants.js';
export type { PhoneLine } from './lines.js';
