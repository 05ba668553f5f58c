/**
 * Group creation (POST /api/v1/chats with several handles), made to survive a crash the way a
 * send does (outbound.ts, reconcile.ts).
 *
 * - Before the line is called, the creation is recorded (its intent: line, handles, first text,
 *   tenant, idempotency key, the ids the chat and message will get, the line's first-touch
 *   reservation). The driver gets the intent's id as its ref.
 * - When the line answers, the chat, a lead and a participant per handle, the first message and
 *   the intent's removal are one transaction: a store that fails in between leaves none of it.
 * - A crash before that, a store failure, or a line whose answer never came (`ambiguous`) leaves
 *   the intent. The reconciliation sweep asks the line whether the group exists (simulator: its
 *   device log; BlueBubbles: our own messages since, with their chats and members) and records it
 *   exactly as the request would have, completing the request's idempotency record with it; not
 *   found once the line's window (sendWindowMs(NO_FILES)) has passed, it drops the intent, frees the
 *   idempotency key and gives the first-touch reservation back. A lost answer wakes the sweep for
 *   the end of that window (SettleWakeup), so the key is not held until the next minute's sweep.
 * - Until then the idempotency key stays in progress (Claim.keep): a retry under it answers 1012
 *   and never creates a second group.
 */
import { DomainError } from '../../errors/registry.js';
import type { GroupCreation, Message, PhoneLine, Repos, Store, Tenant } from '../../store/index.js';
import type { Clock } from '../../clock.js';
import type { DriverRegistry } from '../../drivers/registry.js';
import { DriverFailure, NO_FILES } from '../../drivers/types.js';
import type { ChatOpened } from './chats.js';
import type { Claim } from './idempotency.js';
import type { SettleWakeup } from './deps.js';
import type { StatusEvents } from './status-events.js';
import type { FirstTouchReservation } from './limits.js';
import { recordedResult } from './idempotency.js';
import { newMessageId } from './outbound.js';
import { fromDriverFailure } from './driver-errors.js';
import { newUuid, randomHex } from '../ids.js';
import { sweepPending, type OnSendSettled } from './sweep.js';
import { NOT_SENT_CODE } from './undelivered.js';

/** The idempotency route of chat creation. */
export const CHATS_ROUTE = 'chats';

/** What the line answered for a group it created: the group's chat key and its first message's guid. */
export interface CreatedGroup {
  chatKey: string;
  guid: string;
  /** The group exists, but Messages failed its first message: recorded `failed` (4001). */
  firstMessageFailed?: boolean;
}

/** A group to record, with the ids chosen for it before its line was called. */
export interface GroupToRecord {
  tenantId: string;
  line: { id: string; phone_number: string };
  handles: string[];
  text: string;
  displayName: string | null;
  chatId: string;
  messageId: string;
  /** When the creation started (the chat's and message's time). */
  at: number;
}

/**
 * Writes the chat, leads, participants and first message of a group the line created; run it in
 * a transaction. A chat already known by the group's key (a member wrote into the group before a
 * sweep recorded it) is that group: the rest goes into it.
 */
export async function recordGroup(tx: Repos, g: GroupToRecord, created: CreatedGroup): Promise<ChatOpened> {
  const chat =
    (await tx.chats.chatByKey(g.tenantId, created.chatKey)) ??
    (await tx.chats.ensureChat({
      id: g.chatId,
      tenant_id: g.tenantId,
      is_group: true,
      lead_id: null,
      line_id: g.line.id,
      convo_id: newUuid(),
      chat_key: created.chatKey,
      display_name: g.displayName,
      created_at: g.at,
      left_at: null,
    }));
  for (const h of g.handles) {
    await tx.chats.upsertLead({ id: newUuid(), tenant_id: g.tenantId, handle: h, created_at: g.at });
    await tx.chats.addParticipant(chat.id, h, g.at);
  }
  const message: Message = {
    id: g.messageId,
    tenant_id: g.tenantId, chat_id: chat.id, line_id: g.line.id, direction: 'outbound', sender_handle: g.line.phone_number,
    parts: [{ type: 'text', value: g.text }], effect: null, status: created.firstMessageFailed ? 'failed' : 'sent', provider_guid: created.guid, first_touch: true,
    error_code: created.firstMessageFailed ? NOT_SENT_CODE : null, sent_at: g.at, delivered_at: null, read_at: null, edited_at: null,
  };
  await tx.messages.insert(message);
  return { kind: 'chat_opened', created: true, chat, participants: await tx.chats.participants(chat.id), lead: null, message };
}

export interface GroupRequest {
  handles: string[];
  text: string;
  displayName: string | null;
  idempotencyKey?: string;
}

export interface GroupSweepResult {
  recorded: number;
  dropped: number;
  pending: number;
  /** When the earliest pending creation's window ends (epoch ms), if any. */
  nextAt?: number;
}

export interface GroupSweepLog {
  warn(obj: object, msg: string): void;
}

export function groupCreations(deps: { store: Store; clock: Clock; drivers: DriverRegistry; settling?: SettleWakeup; onSettled?: OnSendSettled; statusEvents?: StatusEvents }) {
  const { store, clock, drivers } = deps;

  const toRecord = (g: GroupCreation, line: PhoneLine): GroupToRecord => ({
    tenantId: g.tenant_id, line, handles: g.handles, text: g.text, displayName: g.display_name, chatId: g.chat_id, messageId: g.message_id, at: g.created_at,
  });

  /**
   * The group's name, given on the device: a line creates a group without one (no driver takes a
   * name with the creation), so a requested display_name is a rename right after. Recorded only
   * if the device took it (as every rename is): otherwise the chat says it has none, which the
   * caller can set again with PATCH.
   */
  async function nameOnDevice(g: GroupCreation, line: PhoneLine, created: CreatedGroup): Promise<GroupCreation> {
    if (!g.display_name) return g;
    try {
      await drivers.forLine(line).renameGroup(created.chatKey, g.display_name);
      return g;
    } catch {
      // The answer's display_name is null: what the device has.
      return { ...g, display_name: null };
    }
  }

  /**
   * Records the group and settles its intent in one transaction; a group recorded already (by its
   * request or a sweep) is answered as it is (`recordedHere` false). Its first message's
   * message.sent is recorded with it, and, when a sweep records it (the request was answered 3002),
   * so is a message.failed: no answer said that.
   */
  async function record(g: GroupCreation, line: PhoneLine, created: CreatedGroup, bySweep: boolean): Promise<{ opened: ChatOpened; recordedHere: boolean }> {
    g = await nameOnDevice(g, line, created);
    const wanted = deps.statusEvents ? await deps.statusEvents.wantedFor(line.id) : undefined;
    let announced = false;
    const recorded = await store.transaction(async (tx) => {
      // The removal first: of two settling the same intent at once, the second waits here for the first.
      const open = await tx.groupCreations.remove(g.id);
      const already = await tx.messages.get(g.tenant_id, g.message_id);
      if (already) {
        const chat = (await tx.chats.getChat(g.tenant_id, already.chat_id))!;
        const opened: ChatOpened = { kind: 'chat_opened', created: true, chat, participants: await tx.chats.participants(chat.id), lead: null, message: already };
        return { opened, recordedHere: false };
      }
      const opened = await recordGroup(tx, toRecord(g, line), created);
      if (open && g.idempotency_key) await tx.idempotency.settle({ tenant_id: g.tenant_id, route: CHATS_ROUTE, key: g.idempotency_key }, recordedResult(opened));
      const type = opened.message.status === 'sent' ? 'message.sent' : bySweep ? 'message.failed' : undefined;
      if (type && wanted?.has(type)) announced = await deps.statusEvents!.record(tx, type, opened.message);
      return { opened, recordedHere: true };
    });
    if (announced) deps.statusEvents!.recorded(g.tenant_id);
    return recorded;
  }

  /** The line has no such group: the intent goes, the idempotency key is free again, the reservation given back. */
  async function drop(g: GroupCreation): Promise<boolean> {
    const mine = await store.transaction(async (tx) => {
      if (!(await tx.groupCreations.remove(g.id))) return false;
      if (g.idempotency_key) await tx.idempotency.release({ tenant_id: g.tenant_id, route: CHATS_ROUTE, key: g.idempotency_key });
      return true;
    });
    if (mine) {
      await store.lineRuntime.releaseFirstTouch(g.line_id, g.reserved_at, g.previous_first_touch_at);
      await store.firstTouchDays.giveBack(g.tenant_id, g.reserved_at);
    }
    return mine;
  }

  async function settle(g: GroupCreation, retryInMs: number, log?: GroupSweepLog): Promise<'recorded' | 'dropped' | { until: number }> {
    const line = await store.lines.get(g.line_id);
    if (!line || !drivers.has(line.driver)) {
      // Nothing to ask: the line is gone, so nothing can be created through it since.
      if (await drop(g)) deps.onSettled?.('group', 'failed');
      return 'dropped';
    }
    const driver = drivers.forLine(line);
    const found = await driver.lookupGroup(g.id, {
      handles: g.handles,
      text: g.text,
      recordedAt: g.created_at,
      isClaimed: async (guid) => (await store.messages.byProviderGuid(line.id, guid)) !== undefined,
    });
    if (found.state === 'created') {
      if ((await record(g, line, found, true)).recordedHere) deps.onSettled?.('group', 'sent');
      return 'recorded';
    }
    const until = g.created_at + driver.sendWindowMs(NO_FILES);
    if (found.state === 'unknown') {
      log?.warn({ group_creation_id: g.id, line_id: line.id, reason: found.reason }, 'cannot tell yet whether an interrupted group creation happened; asking again later');
      return { until: Math.max(until, clock.now() + retryInMs) };
    }
    if (clock.now() < until) return { until };
    if (await drop(g)) deps.onSettled?.('group', 'failed');
    return 'dropped';
  }

  return {
    /**
     * Creates the group on the reserved line and records it. `claim` is the request's idempotency
     * claim: kept in progress once the group may exist and is not recorded yet.
     */
    async create(tenant: Tenant, reservation: FirstTouchReservation, req: GroupRequest, claim: Claim): Promise<ChatOpened> {
      const { line } = reservation;
      const now = clock.now();
      const g: GroupCreation = {
        id: `gc_${randomHex(16)}`, tenant_id: tenant.id, line_id: line.id, handles: req.handles, text: req.text, display_name: req.displayName,
        idempotency_key: req.idempotencyKey ?? null, chat_id: `ch_${randomHex(16)}`, message_id: newMessageId(now),
        reserved_at: reservation.reservedAt, previous_first_touch_at: reservation.previous, created_at: now,
      };
      try {
        await store.groupCreations.insert(g);
      } catch (err) {
        await reservation.release();
        throw err;
      }
      let created: CreatedGroup;
      try {
        created = await drivers.forLine(line).createGroup(g.handles, g.text, { ref: g.id });
      } catch (err) {
        if (err instanceof DriverFailure && err.kind === 'ambiguous') {
          claim.keep();
          // Settled from the line as soon as its window ends (reconcile.ts).
          deps.settling?.settleAt(g.created_at + drivers.forLine(line).sendWindowMs(NO_FILES));
          throw new DomainError(
            3002,
            `the phone line did not answer in time: ${err.message}. The group is recorded once the line tells whether it exists (a retry with the same idempotency_key answers it then); look at GET /api/v1/chats before creating it again without one`,
          );
        }
        // The line refused: no group, so nothing stays reserved.
        await store.groupCreations.remove(g.id);
        await reservation.release();
        throw fromDriverFailure(err, 'group creation');
      }
      // The group exists from here: if recording it fails, the sweep records it, and the key waits for that.
      claim.keep();
      return (await record(g, line, created, false)).opened;
    },

    /** Whether a creation under this idempotency key is still to be settled. */
    async unsettled(tenantId: string, key: string): Promise<boolean> {
      return (await store.groupCreations.byKey(tenantId, key)) !== undefined;
    },

    /** Settles what crashes and lost answers left: recorded if the line has the group, dropped once its window passed without it. */
    async sweep(retryInMs: number, log?: GroupSweepLog): Promise<GroupSweepResult> {
      const pass = await sweepPending({
        pending: (limit) => store.groupCreations.pending(limit),
        settle: (g) => settle(g, retryInMs, log),
        failed: (g, err) => {
          log?.warn({ group_creation_id: g.id, reason: err.message }, 'could not settle an interrupted group creation; asking again later');
          return { until: clock.now() + retryInMs };
        },
        outcomes: ['recorded', 'dropped'] as const,
      });
      return { ...pass.done, pending: pass.pending, ...(pass.nextAt !== undefined && { nextAt: pass.nextAt }) };
    },
  };
}

export type GroupCreations = ReturnType<typeof groupCreations>;
