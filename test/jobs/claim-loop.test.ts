/**
 * The loop the three lease workers share (webhook deliveries, intake rows, HubSpot auto-sends).
 * The poll is a minute in every case, so anything that finishes within the test's few hundred
 * milliseconds did so because of a wake-up, a due time or stop(), never because a poll ran out.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { claimLoop, type ClaimLoopOptions } from '../../src/jobs/claim-loop.js';
import { createLogger } from '../../src/logging.js';

const POLL = 60_000;

/** A promise with its resolve handle, to hold a tick or a lookup open. */
function gate<T = void>() {
  let open!: (v: T) => void;
  const done = new Promise<T>((r) => (open = r));
  return { open, done };
}

/** Resolves once `cond` holds, checking every few ms; fails after `ms`. */
async function until(cond: () => boolean, ms = 2_000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

function harness(over: Partial<ClaimLoopOptions> = {}) {
  const ticks: number[] = [];
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      logs.push(chunk.toString());
      cb();
    },
  });
  const loop = claimLoop({
    tick: async () => {
      ticks.push(Date.now());
      return 0;
    },
    nextDueAt: async () => null,
    batch: 4,
    pollMs: POLL,
    label: 'test worker',
    logger: createLogger({ level: 'info', stream }),
    ...over,
  });
  return { loop, ticks, logs };
}

describe('the claim loop', () => {
  it('stop() during the sleep ends it at once instead of after the poll', async () => {
    const { loop, ticks } = harness();
    loop.start();
    await until(() => ticks.length === 1);
    const t0 = Date.now();
    await loop.stop();
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect(loop.running).toBe(false);
  });

  it('stop() waits for the tick in flight, and no tick follows it', async () => {
    const held = gate<number>();
    let calls = 0;
    const { loop } = harness({ tick: () => (++calls === 1 ? held.done : Promise.resolve(0)) });
    loop.start();
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 30));
    expect(stopped).toBe(false);
    held.open(0);
    await stopping;
    expect(calls).toBe(1);
  });

  it('a stop() while it asks when the next row is due does not then sleep a whole poll', async () => {
    const asked = gate();
    const answer = gate<number | null>();
    const { loop } = harness({
      nextDueAt: () => {
        asked.open();
        return answer.done;
      },
    });
    loop.start();
    await asked.done;
    const stopping = loop.stop();
    answer.open(null);
    const t0 = Date.now();
    await stopping;
    expect(Date.now() - t0).toBeLessThan(1_000);
  });

  it('wake() ends the sleep: the next tick runs now', async () => {
    const { loop, ticks } = harness();
    loop.start();
    await until(() => ticks.length === 1);
    await new Promise((r) => setTimeout(r, 20));
    loop.wake();
    await until(() => ticks.length === 2, 1_000);
    await loop.stop();
  });

  it('a wake() while it ticks is not lost: it ticks again at once instead of sleeping a poll', async () => {
    const held = gate();
    let calls = 0;
    const { loop, ticks } = harness({
      tick: async () => {
        ticks.push(Date.now());
        if (++calls === 1) await held.done; // the first tick is in flight when the wake-up comes
        return 0;
      },
    });
    loop.start();
    await until(() => ticks.length === 1);
    loop.wake();
    held.open();
    await until(() => ticks.length === 2, 1_000);
    // One wake-up, one extra tick: then it sleeps (the poll is a minute).
    await new Promise((r) => setTimeout(r, 50));
    expect(ticks).toHaveLength(2);
    await loop.stop();
  });

  it('sleeps only until the next row is due', async () => {
    const { loop, ticks } = harness({ nextDueAt: async () => Date.now() + 50 });
    loop.start();
    await until(() => ticks.length === 1);
    await until(() => ticks.length === 2, 1_000);
    expect(ticks[1]! - ticks[0]!).toBeGreaterThanOrEqual(40);
    await loop.stop();
  });

  it('ticks again without sleeping while batches come back full', async () => {
    const sizes = [4, 4, 1];
    let looked = 0;
    const { loop, ticks } = harness({
      tick: async () => sizes[ticks.push(Date.now()) - 1] ?? 0,
      nextDueAt: async () => {
        looked++;
        return null;
      },
    });
    loop.start();
    await until(() => ticks.length === 3);
    await new Promise((r) => setTimeout(r, 30));
    // Two full batches, then a partial one: only then did it ask when to come back, and sleep.
    expect(ticks).toHaveLength(3);
    expect(looked).toBe(1);
    await loop.stop();
  });

  it('logs a failed tick under its label and keeps going', async () => {
    let calls = 0;
    const { loop, logs } = harness({
      tick: async () => {
        if (++calls === 1) throw new Error('store went away');
        return 0;
      },
    });
    loop.start();
    await until(() => calls === 1);
    await new Promise((r) => setTimeout(r, 20));
    loop.wake();
    await until(() => calls === 2, 1_000);
    await loop.stop();
    const failed = logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'test worker tick failed');
    expect(failed).toHaveLength(1);
    expect(failed[0].err.message).toBe('store went away');
  });

  it('a lookup that fails falls back to the poll rather than ending the loop', async () => {
    const { loop, ticks } = harness({ nextDueAt: () => Promise.reject(new Error('no answer')) });
    loop.start();
    await until(() => ticks.length === 1);
    await new Promise((r) => setTimeout(r, 20));
    expect(loop.running).toBe(true);
    loop.wake();
    await until(() => ticks.length === 2, 1_000);
    await loop.stop();
  });

  it('drain() ticks until nothing is claimed, without the loop running', async () => {
    const sizes = [4, 2, 1, 0];
    let calls = 0;
    const { loop } = harness({ tick: async () => sizes[calls++] ?? 0 });
    await loop.drain();
    expect(calls).toBe(4);
    expect(loop.running).toBe(false);
  });
});
