/**
 * A line's reports on one of our messages (delivered and read receipts, late failures) that name
 * a guid no message has yet. A send is recorded `sending` and gets its guid only once the line's
 * call returns (outbound.ts, markSent), so the line can report on it first: the simulator with no
 * receipt delay, a BlueBubbles webhook racing the send's answer, a send made by another process
 * on the same database. Dropped, it would leave the message `sent` for ever.
 *
 * So it is tried again, reading the store each time, RETRY_AFTER_MS after it first came, and
 * then given up (logged at debug). The race is milliseconds (the answer's last hop and one
 * write), so the first try nearly always finds the message; the later ones cover a slow answer or
 * another process, and bound what a guid that never becomes one of ours costs (an inbound
 * message's, a message sent from the Mac by hand): five tries in 30 s. Held in this process only,
 * at most `maxHeld` at once (the oldest is given up first), and dropped at stop: a report lost to
 * a restart is lost as it was before.
 */
import type { Clock } from '../../clock.js';

/** When a report is tried again, in business ms after it first came; the last try gives up. */
export const RETRY_AFTER_MS = [250, 1_000, 3_000, 10_000, 30_000] as const;
/** Reports held at once, at most (a few hundred bytes each). */
export const MAX_HELD = 10_000;
/**
 * The timer runs on real time and the schedule on the business clock: waking at least this often
 * while reports wait, a test clock moved forward is seen at the next wake-up (as reconcile.ts does).
 */
const MAX_WAIT_MS = 1_000;

/** `matched`: BlueBubbles naming the real guid of a send we know by its tempGuid (sendMatched). */
export type ReportKind = 'delivered' | 'read' | 'failed' | 'matched';

export interface UnmatchedReportsLog {
  debug(obj: object, msg: string): void;
}

interface Held {
  key: string;
  report: ReportKind;
  lineId: string;
  guid: string;
  firstAt: number;
  dueAt: number;
  tries: number;
  /** Applies the report again; false while its guid still names no message. */
  retry(): Promise<boolean>;
}

export function unmatchedReports(deps: { clock: Clock; log?: UnmatchedReportsLog }, opts: { maxHeld?: number } = {}) {
  const { clock } = deps;
  const maxHeld = opts.maxHeld ?? MAX_HELD;
  /** In the order they came, so the oldest goes first when the cap is reached. */
  const held = new Map<string, Held>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;

  const giveUp = (h: Held, why: string) => {
    held.delete(h.key);
    deps.log?.debug({ line_id: h.lineId, guid: h.guid, report: h.report, tries: h.tries }, why);
  };

  /** The next try after `now`; undefined once the schedule is over (a clock moved far skips the tries it passed). */
  const nextDue = (firstAt: number, now: number) => RETRY_AFTER_MS.map((after) => firstAt + after).find((at) => at > now);

  function arm() {
    if (stopped || running || timer || held.size === 0) return;
    let due = Infinity;
    for (const h of held.values()) due = Math.min(due, h.dueAt);
    timer = setTimeout(() => {
      timer = undefined;
      running = tryDue().finally(() => {
        running = undefined;
        arm();
      });
    }, Math.min(MAX_WAIT_MS, Math.max(0, due - clock.now())));
    // Nothing held keeps the process alive.
    timer.unref();
  }

  async function tryDue(): Promise<void> {
    const now = clock.now();
    const due = [...held.values()].filter((h) => h.dueAt <= now);
    // One after another, in the order they came: a delivered receipt tried again before the read
    // one of the same message keeps its own time (a read applied first would set both).
    for (const h of due) {
      let matched = false;
      try {
        matched = await h.retry();
      } catch {
        // The store could not tell (unavailable): as a miss, tried again on schedule.
      }
      h.tries++;
      if (held.get(h.key) !== h) continue; // given up meanwhile (stop, cap)
      const next = matched ? undefined : nextDue(h.firstAt, clock.now());
      if (matched) held.delete(h.key);
      else if (next === undefined) giveUp(h, 'gave up a report on a guid none of the line\'s messages has');
      else h.dueAt = next;
    }
  }

  return {
    /**
     * Tries `retry` again on schedule until it finds the message. The same report on the same
     * guid again while one is held is dropped: the first stands (for a receipt, its time).
     */
    hold(report: ReportKind, lineId: string, guid: string, retry: () => Promise<boolean>): void {
      if (stopped) return;
      const key = `${report}\u0000${lineId}\u0000${guid}`;
      if (held.has(key)) return;
      if (held.size >= maxHeld) giveUp(held.values().next().value!, 'gave up a report on an unknown guid: too many held');
      const now = clock.now();
      held.set(key, { key, report, lineId, guid, firstAt: now, dueAt: now + RETRY_AFTER_MS[0], tries: 0, retry });
      arm();
    },
    /** Reports waiting for their message now. */
    held: (): number => held.size,
    /** Drops what is held and holds nothing more; resolves once the tries under way are done (before the store closes). */
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      held.clear();
      await running;
    },
  };
}

export type UnmatchedReports = ReturnType<typeof unmatchedReports>;
