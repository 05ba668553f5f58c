/**
 * Delivered and read receipts, applied in batches.
 *
 * Every sent message comes back as two receipts, so they are as many as the sends. Receipts
 * that arrive while a batch is being written wait and go together in the next one (one
 * statement per line and kind), the way group commit batches SQLite's commits: under load a
 * batch grows, alone a receipt goes at once. Each caller still learns when its own receipt is
 * stored (and whether its guid named a message), or why it failed.
 *
 * A line whose project subscribes to `message.delivered` or `message.read` takes the slow way:
 * each receipt in one transaction with the message read before and after, and an event for each
 * time it set. Most projects want none, and their receipts stay one statement a batch.
 */
import type { Message, Store } from '../../store/index.js';
import type { StatusEventType } from '../events/vocabulary.js';
import type { StatusEvents } from './status-events.js';

type Kind = 'delivered' | 'read';

interface Pending {
  lineId: string;
  kind: Kind;
  guid: string;
  atMs: number;
  resolve(matched: boolean): void;
  reject(err: unknown): void;
}

/** At most this many receipts per statement (bounds the statement's parameter and its time). */
const MAX_BATCH = 500;

/** The status events a receipt of `kind` can cause (a read sets the delivery time too when it was missing). */
const CAUSES: Record<Kind, readonly StatusEventType[]> = { delivered: ['message.delivered'], read: ['message.delivered', 'message.read'] };

/** What a receipt changed: the delivery time, the read time, or both, once each. */
function changed(before: Message, after: Message): StatusEventType[] {
  const types: StatusEventType[] = [];
  if (before.delivered_at == null && after.delivered_at != null) types.push('message.delivered');
  if (before.read_at == null && after.read_at != null) types.push('message.read');
  return types;
}

export function receiptWriter(store: Pick<Store, 'messages' | 'transaction'>, statusEvents?: StatusEvents) {
  let pending: Pending[] = [];
  let writing = false;

  /** Runs while `writing` is set (by apply, when it schedules this). */
  async function writeAll(): Promise<void> {
    try {
      while (pending.length > 0) {
        const batch = pending;
        pending = [];
        await Promise.all([...groups(batch)].map((group) => write(group)));
      }
    } finally {
      writing = false;
    }
  }

  async function write(group: Pending[]): Promise<void> {
    for (let i = 0; i < group.length; i += MAX_BATCH) {
      const chunk = group.slice(i, i + MAX_BATCH);
      const { lineId, kind } = chunk[0]!;
      try {
        const wanted = statusEvents ? await statusEvents.wantedFor(lineId) : undefined;
        const announced = wanted !== undefined && CAUSES[kind].some((t) => wanted.has(t));
        const matched = announced ? await writeAnnounced(lineId, kind, chunk, wanted) : await store.messages.applyReceipts(lineId, kind, chunk);
        for (const r of chunk) r.resolve(matched.has(r.guid));
      } catch (err) {
        for (const r of chunk) r.reject(err);
      }
    }
  }

  /** Receipts of a line whose project wants status events: each with what it changed, and the events for it. */
  async function writeAnnounced(lineId: string, kind: Kind, chunk: Pending[], wanted: ReadonlySet<StatusEventType>): Promise<Set<string>> {
    const matched = new Set<string>();
    let recordedFor: string | undefined;
    await store.transaction(async (tx) => {
      for (const r of chunk) {
        const before = await tx.messages.byProviderGuid(lineId, r.guid);
        if (!before || !(await tx.messages.applyReceipts(lineId, kind, [r])).size) continue;
        matched.add(r.guid);
        const after = (await tx.messages.byProviderGuid(lineId, r.guid))!;
        for (const type of changed(before, after)) {
          if (wanted.has(type) && (await statusEvents!.record(tx, type, after))) recordedFor = after.tenant_id;
        }
      }
    });
    if (recordedFor) statusEvents!.recorded(recordedFor);
    return matched;
  }

  return {
    /** Stores one receipt; resolves once it (and its batch) is written: false when its guid named no message of ours. */
    apply(lineId: string, guid: string, kind: Kind, atMs: number): Promise<boolean> {
      return new Promise<boolean>((resolve, reject) => {
        pending.push({ lineId, kind, guid, atMs, resolve, reject });
        // On the next turn, so receipts reported together (timers, a webhook burst) share a batch.
        if (!writing) {
          writing = true;
          setImmediate(() => void writeAll());
        }
      });
    },
  };
}

/** Receipts by line and kind, in arrival order within each. */
function groups(batch: Pending[]): Iterable<Pending[]> {
  const byKey = new Map<string, Pending[]>();
  for (const r of batch) {
    const key = `${r.kind}\u0000${r.lineId}`;
    const group = byKey.get(key);
    if (group) group.push(r);
    else byKey.set(key, [r]);
  }
  return byKey.values();
}
