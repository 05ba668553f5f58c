/**
 * The typed store: one object the domain receives, the same over SQLite and
 * PostgreSQL. Repositories own row mapping and encryption of secrets at rest.
 */
import { openDatabase, type Database, type OpenOptions } from './db.js';
import { accountsRepo } from './accounts.js';
import { tenantsRepo } from './tenants.js';
import { linesRepo } from './lines.js';
import { secretBox, checkMasterKey } from './secret-box.js';
import { chatsRepo } from './chats.js';
import { messagesRepo } from './messages.js';
import { idempotencyRepo } from './idempotency.js';
import { lineRuntimeRepo } from './line-runtime.js';
import { lineDirectChatsRepo } from './line-direct-chats.js';
import { firstTouchDaysRepo } from './first-touch-days.js';
import { rateBucketsRepo } from './rate-buckets.js';
import { simulatorLogRepo } from './simulator-log.js';
import { mediaRepo } from './media.js';
import { eventsRepo } from './events.js';
import { consoleSessionsRepo } from './console-sessions.js';
import { housekeepingRepo } from './housekeeping.js';
import { chatListRepo } from './chat-list.js';
import { statsRepo } from './stats.js';
import { intakeRepo } from './intake.js';
import { hubspotRepo } from './hubspot.js';
import { hubspotPushRepo } from './hubspot-push.js';
import { hubspotHeldRepo } from './hubspot-held.js';
import { reactionsRepo } from './reactions.js';
import { inboundDirectRepo } from './inbound-direct.js';
import { deliveriesRepo } from './deliveries.js';
import { groupCreationsRepo } from './group-creations.js';
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.js';
import type { Dialect } from './db.js';
import type { SecretBox } from './secret-box.js';

function repos(db: Kysely<DB>, dialect: Dialect, box: SecretBox) {
  const lines = linesRepo(db, box);
  const events = eventsRepo(db, dialect, box);
  return {
    accounts: accountsRepo(db, dialect, box),
    tenants: tenantsRepo(db),
    lines,
    chats: chatsRepo(db, lines.fromRow),
    messages: messagesRepo(db, dialect),
    idempotency: idempotencyRepo(db),
    lineRuntime: lineRuntimeRepo(db),
    lineDirectChats: lineDirectChatsRepo(db),
    firstTouchDays: firstTouchDaysRepo(db),
    rateBuckets: rateBucketsRepo(db, dialect),
    simulatorLog: simulatorLogRepo(db),
    media: mediaRepo(db),
    events,
    deliveries: deliveriesRepo(db, dialect, box, events),
    consoleSessions: consoleSessionsRepo(db),
    chatList: chatListRepo(db, dialect),
    stats: statsRepo(db),
    intake: intakeRepo(db, dialect),
    hubspot: hubspotRepo(db, dialect, box),
    hubspotPush: hubspotPushRepo(db, dialect),
    hubspotHeld: hubspotHeldRepo(db, dialect),
    reactions: reactionsRepo(db),
    inboundDirect: inboundDirectRepo(db, dialect),
    groupCreations: groupCreationsRepo(db),
    housekeeping: housekeepingRepo(db),
  };
}

export type Repos = ReturnType<typeof repos>;

export interface Store extends Repos {
  database: Database;
  /** Runs `fn` in one transaction with repositories bound to it. */
  transaction<T>(fn: (tx: Repos) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` while no other process runs an `exclusive` of the same `name`: on PostgreSQL a
   * transaction holds an advisory lock on the name meanwhile (`fn` works through the store as
   * usual, on other connections); SQLite serves one process, so `fn` just runs.
   */
  exclusive<T>(name: string, fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export async function openStore(opts: OpenOptions & { masterKey: Buffer }): Promise<Store> {
  const database = await openDatabase(opts);
  const box = secretBox(opts.masterKey);
  try {
    await checkMasterKey(database.db, box);
  } catch (err) {
    // Closed without waiting: the caller is told at once. Awaited, the close waits for the SQLite
    // checkpointer's thread, which holds no process open: in a starting process with nothing else
    // to keep it alive, Node would exit 0 silently before the error was printed.
    void database.close().catch(() => {});
    throw err;
  }
  return {
    database,
    ...repos(database.db, database.dialect, box),
    transaction: (fn) =>
      database.db.transaction().execute((tx) => {
        database.transactionOpened(tx);
        return fn(repos(tx, database.dialect, box));
      }),
    exclusive: (name, fn) =>
      database.dialect === 'postgres'
        ? database.db.transaction().execute(async (tx) => {
            await sql`select pg_advisory_xact_lock(hashtext(${name}))`.execute(tx);
            return fn();
          })
        : fn(),
    close: () => database.close(),
  };
}

export type { Account } from './accounts.js';
export type { Tenant } from './tenants.js';
export type { PhoneLine } from './lines.js';
export type { Lead, Chat } from './chats.js';
export type { Message, MessagePart } from './messages.js';
export type { IdempotencyId, IdempotencyRecord } from './idempotency.js';
export type { Attachment, VoiceNote } from './media.js';
export type { ConsoleSession } from './console-sessions.js';
export type { IntakeItem, InboundCursor } from './intake.js';
export type { Subscription, EventRow, DeliveredEvent, DeliveryJob, DeliveryAttempt } from './events.js';
export type { HubSpotInstall, HubSpotAutoSend, HubSpotTokens } from './hubspot.js';
export type { MessageReaction } from './reactions.js';
export type { GroupCreation } from './group-creations.js';
export type { PushCandidate, ReplyPush, PushState, PushKey } from './hubspot-push.js';
export type { HeldAction, HeldActionCounts } from './hubspot-held.js';
