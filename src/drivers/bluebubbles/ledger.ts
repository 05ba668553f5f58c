/**
 * Process-local memory the driver and the webhook handler share, per line:
 *
 * - Sends by tempGuid. Every send carries a `tempGuid` we make. BlueBubbles
 *   answers a send with the sent message (its real `guid`, our `tempGuid`
 *   injected back). Should an answer lack the real guid, the driver reports
 *   the tempGuid as the message's guid; BlueBubbles later posts a `new-message`
 *   webhook for our own message carrying both (`emitMessageMatch`), and from
 *   then on receipts for the real guid are reported under the tempGuid.
 * - Webhook events already handled (or in flight), so a repeated event is not
 *   fetched and reported twice by this process. The service also ignores an
 *   inbound guid it has stored, which covers several processes.
 *
 * Entries expire (and the maps are bounded) so a long-running process does not grow.
 */

const TTL_MS = 6 * 60 * 60 * 1000;
const MAX_ENTRIES = 20_000;

class ExpiringMap<V> {
  private readonly map = new Map<string, { value: V; at: number }>();

  get(key: string, now = Date.now()): V | undefined {
    const e = this.map.get(key);
    if (!e) return undefined;
    if (now - e.at > TTL_MS) {
      this.map.delete(key);
      return undefined;
    }
    return e.value;
  }

  set(key: string, value: V, now = Date.now()): void {
    this.map.delete(key);
    this.map.set(key, { value, at: now });
    while (this.map.size > MAX_ENTRIES) {
      const oldest = this.map.keys().next().value;
      if (oldest === undefined) break;
      this.map.delete(oldest);
    }
  }

  delete(key: string): void {
    this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
  }
}

/** tempGuid → the guid we reported for the send */
const sentByTemp = new ExpiringMap<string>();
/** BlueBubbles' real guid → the guid we reported (only when they differ) */
const aliasOfReal = new ExpiringMap<string>();
/** the guid we reported → BlueBubbles' real guid (only when they differ) */
const realOfReported = new ExpiringMap<string>();
/** handled webhook work, keyed `${lineId}:${what}` */
const handled = new ExpiringMap<Promise<unknown>>();

const k = (lineId: string, id: string) => `${lineId}\u0000${id}`;

export const ledger = {
  /** Remember a send: its tempGuid and the guid we reported for it. */
  recordSend(lineId: string, tempGuid: string, reportedGuid: string): void {
    sentByTemp.set(k(lineId, tempGuid), reportedGuid);
  },

  /** A `new-message` for our own message names both guids: link them. */
  learnRealGuid(lineId: string, tempGuid: string, realGuid: string): boolean {
    const reported = sentByTemp.get(k(lineId, tempGuid));
    if (reported === undefined) return false;
    if (reported !== realGuid) {
      aliasOfReal.set(k(lineId, realGuid), reported);
      realOfReported.set(k(lineId, reported), realGuid);
    }
    return true;
  },

  /** The guid BlueBubbles knows a message by (differs only for a send reported by its tempGuid). */
  realGuidFor(lineId: string, reportedGuid: string): string {
    return realOfReported.get(k(lineId, reportedGuid)) ?? reportedGuid;
  },

  /** The guid the service knows a message by. */
  reportedGuidFor(lineId: string, realGuid: string): string {
    return aliasOfReal.get(k(lineId, realGuid)) ?? realGuid;
  },

  /**
   * Runs `work` once per key in this process: a repeat while it runs shares it;
   * a repeat after it succeeded is skipped (`undefined`). A failed run is
   * forgotten, so a later delivery of the same event can try again.
   */
  async once<T>(lineId: string, key: string, work: () => Promise<T>): Promise<{ ran: true; result: T } | { ran: false }> {
    const id = k(lineId, key);
    const existing = handled.get(id);
    if (existing) {
      await existing.catch(() => {});
      return { ran: false };
    }
    const p = work();
    handled.set(id, p);
    try {
      return { ran: true, result: await p };
    } catch (err) {
      handled.delete(id);
      throw err;
    }
  },

  /** Tests only. */
  reset(): void {
    sentByTemp.clear();
    aliasOfReal.clear();
    realOfReported.clear();
    handled.clear();
  },
};
