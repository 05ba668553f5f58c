/**
 * Webhook work already handled (or in flight) in this process, per line, so a
 * repeated BlueBubbles event is not fetched and reported twice by it. Only an
 * optimisation: the service also ignores an inbound guid it has stored and a
 * receipt it already applied, which covers several processes.
 *
 * Entries expire (and the map is bounded) so a long-running process does not grow.
 */

const TTL_MS = 6 * 60 * 60 * 1000;
const MAX_ENTRIES = 20_000;

/** handled webhook work, keyed `${lineId}\0${what}`, with when it started */
const handled = new Map<string, { work: Promise<unknown>; at: number }>();

function remembered(key: string, now: number): Promise<unknown> | undefined {
  const e = handled.get(key);
  if (e && now - e.at <= TTL_MS) return e.work;
  handled.delete(key);
  return undefined;
}

function remember(key: string, work: Promise<unknown>, now: number): void {
  handled.set(key, { work, at: now });
  while (handled.size > MAX_ENTRIES) handled.delete(handled.keys().next().value!);
}

export const ledger = {
  /**
   * Runs `work` once per key in this process: a repeat while it runs shares it;
   * a repeat after it succeeded is skipped. A failed run is forgotten, so a
   * later delivery of the same event can try again.
   */
  async once<T>(lineId: string, key: string, work: () => Promise<T>): Promise<{ ran: true; result: T } | { ran: false }> {
    const id = `${lineId}\u0000${key}`;
    const existing = remembered(id, Date.now());
    if (existing) {
      await existing.catch(() => {});
      return { ran: false };
    }
    const p = work();
    remember(id, p, Date.now());
    try {
      return { ran: true, result: await p };
    } catch (err) {
      handled.delete(id);
      throw err;
    }
  },
};
