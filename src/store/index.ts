/**
 * The typed store: one object the domain receives, the same over SQLite and
 * PostgreSQL. Repositories own row mapping and encryption of secrets at rest.
 */
import { openDatabase, type Database, type OpenOptions } from './db.js';
import { accountsRepo } from './accounts.js';
import { tenantsRepo } from './tenants.js';
import { linesRepo } from './lines.js';
import { secretBox } from './secret-box.js';
import { conversationsRepo } from './conversations.js';
import { messagesRepo } from './messages.js';
import { idempotencyRepo } from './idempotency.js';
import { lineRuntimeRepo } from './line-runtime.js';
import { mediaRepo } from './media.js';

export interface Store {
  database: Database;
  accounts: ReturnType<typeof accountsRepo>;
  tenants: ReturnType<typeof tenantsRepo>;
  lines: ReturnType<typeof linesRepo>;
  conversations: ReturnType<typeof conversationsRepo>;
  messages: ReturnType<typeof messagesRepo>;
  idempotency: ReturnType<typeof idempotencyRepo>;
  lineRuntime: ReturnType<typeof lineRuntimeRepo>;
  media: ReturnType<typeof mediaRepo>;
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
    conversations: conversationsRepo(database.db),
    messages: messagesRepo(database.db),
    idempotency: idempotencyRepo(database.db),
    lineRuntime: lineRuntimeRepo(database.db, database.dialect),
    media: mediaRepo(database.db),
    close: () => database.close(),
  };
}

export type { Account } from './accounts.js';
export type { Tenant } from './tenants.js';
export type { PhoneLine } from './lines.js';
export type { Lead, Chat } from './conversations.js';
export type { Message, MessagePart } from './messages.js';
export type { IdempotencyRecord } from './idempotency.js';
export type { Attachment, VoiceNote } from './media.js';
