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
  /** Names the worker in its log line ("<label> tick failed"). */
  label: string;
  logger?: Logger;
}

export function claimLoop(opts: ClaimLoopOptions) {
  let running = false;
  let loop: Promise<void> | undefined;
  let endSleep: (() => void) | undefined;
  // A wake-up that came while ticking: the work it announced may have missed that tick's claim.
  let wokenMeanwhile = false;

  async function run() {
    while (running) {
      let claimed = 0;
      let failed = false;
      wokenMeanwhile = false;
      try {
        claimed = await opts.tick();
      } catch (err) {
        // The loop must outlive a bad tick (a store hiccup): log it and poll again.
        opts.logger?.error({ err }, `${opts.label} tick failed`);
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
