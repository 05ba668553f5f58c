/**
 * The loop every claim-with-a-lease worker runs (webhook deliveries, intake rows, HubSpot
 * auto-sends and reply push): tick, go again at once while batches come back full (a backlog),
 * otherwise sleep until the next row is due, a wake-up, or the poll interval, whichever is
 * first. The poll bounds the sleep because the table, not the wake-ups, is the truth: a wake-up
 * from another process may be lost, and a crashed worker's lease runs out without telling anyone.
 *
 * It depends on nothing in src/, so any layer's worker can use it.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';

/**
 * While ticks keep failing (the database down), how often the loop says so again: the failure is
 * logged when it starts and when it ends, not on every poll (several lines a second per worker).
 */
export const FAILING_REMINDER_MS = 60_000;

/** A worker's name in `locked_by`: unique per worker, and says which process held a row. */
export const workerName = (kind: string) => `${kind}:${process.pid}:${randomUUID().slice(0, 8)}`;

export interface ClaimLoopOptions {
  /** Claims a batch and works it; the number claimed. */
  tick: () => Promise<number>;
  /** When the next row falls due (ms since the epoch), or null when none is waiting. */
  nextDueAt: () => Promise<number | null>;
  /** A claim of this many means more may be waiting: tick again without sleeping. */
  batch: number;
  pollMs: number;
  /** Names the worker in its log lines ("<label> tick failed", "<label> tick still failing", "<label> recovered"). */
  label: string;
  logger?: Logger;
}

export function claimLoop(opts: ClaimLoopOptions) {
  let running = false;
  let loop: Promise<void> | undefined;
  let endSleep: (() => void) | undefined;
  // A wake-up that came while ticking: the work it announced may have missed that tick's claim.
  let wokenMeanwhile = false;
  // The current run of failed ticks: when it began, how many, when it was last logged.
  let failing: { since: number; count: number; loggedAt: number } | undefined;

  // Date.now() like the sleep below: the service clock may be a test clock that stands still.
  function tickFailed(err: unknown) {
    const now = Date.now();
    const reason = err instanceof Error ? err.message : String(err);
    if (!failing) {
      failing = { since: now, count: 1, loggedAt: now };
      // The whole error once (its stack says where); then only reminders, and the recovery.
      opts.logger?.warn({ err, reason }, `${opts.label} tick failed`);
      return;
    }
    failing.count++;
    if (now - failing.loggedAt < FAILING_REMINDER_MS) return;
    failing.loggedAt = now;
    opts.logger?.warn({ reason, failed_ticks: failing.count, failing_ms: now - failing.since }, `${opts.label} tick still failing`);
  }

  function tickSucceeded() {
    if (!failing) return;
    opts.logger?.info({ failed_ticks: failing.count, failing_ms: Date.now() - failing.since }, `${opts.label} recovered`);
    failing = undefined;
  }

  async function run() {
    while (running) {
      let claimed = 0;
      let failed = false;
      wokenMeanwhile = false;
      try {
        claimed = await opts.tick();
        tickSucceeded();
      } catch (err) {
        // The loop must outlive a bad tick (a store hiccup, the database down): poll again.
        tickFailed(err);
        failed = true;
      }
      if (!running) break;
      if (claimed >= opts.batch || (wokenMeanwhile && !failed)) continue;
      // Not knowing when the next row is due is no reason to stop: fall back to the poll.
      const next = await opts.nextDueAt().catch(() => null);
      // stop() may have come while we looked: with nothing to wake yet, we would sleep a whole poll.
      if (!running) break;
      if (wokenMeanwhile && !failed) continue;
      // Date.now(), not the service clock: due times are stored in wall time, and timers run on it.
      const wait = Math.max(5, Math.min(opts.pollMs, next === null ? opts.pollMs : next - Date.now()));
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        endSleep = resolve;
        timer = setTimeout(resolve, wait);
      });
      clearTimeout(timer);
      endSleep = undefined;
    }
  }

  return {
    get running() {
      return running;
    },
    start() {
      if (running) return;
      running = true;
      loop = run();
    },
    /** Ends the loop and resolves once the tick in flight (if any) has finished. */
    async stop() {
      running = false;
      endSleep?.();
      await loop;
    },
    /** Ends the current sleep so due work starts now; while ticking, the loop ticks again at once. */
    wake() {
      if (endSleep) endSleep();
      else if (running) wokenMeanwhile = true;
    },
    /** Ticks until nothing is claimed: the backlog worked now, loop or not (tests, shutdown). */
    async drain() {
      while ((await opts.tick()) > 0);
    },
  };
}

export type ClaimLoop = ReturnType<typeof claimLoop>;
