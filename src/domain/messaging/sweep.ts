/**
 * One pass of a reconciliation sweep (reconcile.ts: sends; group-creations.ts: group creations):
 * what is pending, read in batches, each item settled once even when it stays pending, the
 * outcomes counted and the earliest time to look again kept.
 */
const BATCH = 200;

/**
 * A send whose line's answer never came, settled by a sweep: what it carried and how it ended.
 * Counted where sends are (the metrics' messages sent), since the send itself counted nothing.
 */
export type OnSendSettled = (kind: 'text' | 'media' | 'voice_note' | 'group', result: 'sent' | 'failed') => void;

export interface SweepPass<Done extends string> {
  done: Record<Done, number>;
  pending: number;
  /** When the earliest item still pending is to be looked at again (epoch ms), if any. */
  nextAt?: number;
}

export async function sweepPending<T extends { id: string }, Done extends string>(opts: {
  /** The pending items, oldest first, at most `limit` of them. */
  pending(limit: number): Promise<T[]>;
  settle(item: T): Promise<Done | { until: number }>;
  /** An item that could not be settled now: when to look again (and whatever it logs). */
  failed(item: T, err: Error): { until: number };
  outcomes: readonly Done[];
}): Promise<SweepPass<Done>> {
  const pass: SweepPass<Done> = { done: Object.fromEntries(opts.outcomes.map((o) => [o, 0])) as Record<Done, number>, pending: 0 };
  const seen = new Set<string>();
  for (;;) {
    const batch = (await opts.pending(BATCH + seen.size)).filter((item) => !seen.has(item.id));
    if (batch.length === 0) break;
    for (const item of batch) {
      seen.add(item.id);
      let outcome: Done | { until: number };
      try {
        outcome = await opts.settle(item);
      } catch (err) {
        outcome = opts.failed(item, err as Error);
      }
      if (typeof outcome === 'string') pass.done[outcome]++;
      else {
        pass.pending++;
        pass.nextAt = Math.min(pass.nextAt ?? Infinity, outcome.until);
      }
    }
    if (batch.length < BATCH) break;
  }
  return pass;
}
