/**
 * Delivered and read receipts, applied in batches.
 *
 * Every sent message comes back as two receipts, so they are as many as the sends. Receipts
 * that arrive while a batch is being written wait and go together in the next one (one
 * statement per line and kind), the way group commit batches SQLite's commits: under load a
 * batch grows, alone a receipt goes at once. Each caller still learns when its own receipt is
 * stored (and whether its guid named a message), or why it failed.
 */
import type { Store } from '../../store/index.js';

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

export function receiptWriter(store: Pick<Store, 'messages'>) {
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
        const matched = await store.messages.applyReceipts(lineId, kind, chunk);
        for (const r of chunk) r.resolve(matched.has(r.guid));
      } catch (err) {
        for (const r of chunk) r.reject(err);
      }
    }
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
