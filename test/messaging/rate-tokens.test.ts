/**
 * Tokens taken ahead from the tenant's shared bucket: the limit holds across processes, a busy
 * tenant costs far fewer writes than requests, a quiet one exactly one per request. Against a
 * real store on both databases; time is passed in, never slept.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateTokens } from '../../src/domain/messaging/rate-tokens.js';
import { STORE_KINDS, createTestStore, type TestStore } from '../support/stores.js';

describe.each(STORE_KINDS)('rate tokens on %s', (kind) => {
  let ts: TestStore;
  let statements = 0;

  beforeAll(async () => {
    ts = await createTestStore(kind);
    const take = ts.store.rateBuckets.takeTokens.bind(ts.store.rateBuckets);
    ts.store.rateBuckets.takeTokens = (...args) => {
      statements++;
      return take(...args);
    };
  });
  afterAll(async () => ts.cleanup());

  // A fixed amount of work, not a wait: ~3,900 refused requests, each two updates that find too
  // few tokens and a locking transaction, ~23,000 statements. 0.5 s on SQLite; on PostgreSQL 4 s
  // on a quiet machine and over 12 s on a loaded 2-core one, near the default 30 s. What it counts
  // does not depend on how long it takes (time is passed in).
  it('two processes on one bucket admit no more than burst + rate × time, and nearly that many', { timeout: 120_000 }, async () => {
    // Two processes, each asked 2 requests a millisecond, against 100/s with a burst of 10.
    const processes = [rateTokens(ts.store), rateTokens(ts.store)];
    let admitted = 0;
    let refused = 0;
    statements = 0;
    for (let ms = 0; ms < 1_000; ms++) {
      const now = 1_000_000 + ms;
      const waits = await Promise.all(processes.flatMap((p) => [p.take('ten_shared', 100, 10, now), p.take('ten_shared', 100, 10, now)]));
      for (const w of waits) w === 0 ? admitted++ : refused++;
    }
    // 10 in the bucket at first, 100 a second after: 109.9 tokens at most in 999 ms.
    expect(admitted).toBeLessThanOrEqual(110);
    expect(admitted).toBeGreaterThanOrEqual(100);
    expect(refused).toBe(4_000 - admitted);
  });

  it('a busy tenant takes tokens ahead: far fewer statements than requests, every request admitted', async () => {
    const tokens = rateTokens(ts.store);
    statements = 0;
    let admitted = 0;
    // 10,000/s allowed; asked 5 requests a millisecond (5,000/s) for a second.
    for (let ms = 0; ms < 1_000; ms++) {
      const now = 2_000_000 + ms;
      const waits = await Promise.all(Array.from({ length: 5 }, () => tokens.take('ten_busy', 10_000, 10_000, now)));
      admitted += waits.filter((w) => w === 0).length;
    }
    expect(admitted).toBe(5_000);
    // One take per 50-ms slice once the demand is known, a few while it grows: ~27, not 5,000.
    expect(statements).toBeLessThan(50);
  });

  it('requests arriving together while the reservoir is empty share one take', async () => {
    const tokens = rateTokens(ts.store);
    // Warm the demand estimate: 50 requests in one slice, then the next slice.
    await Promise.all(Array.from({ length: 50 }, () => tokens.take('ten_together', 100_000, 100_000, 3_000_000)));
    statements = 0;
    const waits = await Promise.all(Array.from({ length: 50 }, () => tokens.take('ten_together', 100_000, 100_000, 3_000_060)));
    expect(waits.every((w) => w === 0)).toBe(true);
    expect(statements).toBe(1);
  });

  it('a quiet tenant takes one token per request, and is refused as the bucket says', async () => {
    const tokens = rateTokens(ts.store);
    statements = 0;
    // 2/s, burst 3, five requests at once: three pass, two wait half a second; the fifth is
    // refused on what the fourth learned, without asking the bucket again.
    const waits = [];
    for (let i = 0; i < 5; i++) waits.push(await tokens.take('ten_quiet', 2, 3, 4_000_000));
    expect(waits.slice(0, 3)).toEqual([0, 0, 0]);
    expect(waits[3]).toBeCloseTo(0.5, 5);
    expect(waits[4]).toBeCloseTo(0.5, 5);
    expect(statements).toBe(4);
    // A second later two more tokens are there.
    expect(await tokens.take('ten_quiet', 2, 3, 4_001_000)).toBe(0);
    expect(await tokens.take('ten_quiet', 2, 3, 4_001_000)).toBe(0);
    expect(await tokens.take('ten_quiet', 2, 3, 4_001_000)).toBeGreaterThan(0);
  });

  it('a tenant past its limit is refused without a statement until its next token is due', async () => {
    const tokens = rateTokens(ts.store);
    // 10/s, burst 1: the first passes, then the bucket's next token is 100 ms away.
    expect(await tokens.take('ten_flood', 10, 1, 5_000_000)).toBe(0);
    expect(await tokens.take('ten_flood', 10, 1, 5_000_000)).toBeCloseTo(0.1, 5);
    statements = 0;
    // A flood meanwhile: every request refused with the wait left, none of them a statement.
    const waits = await Promise.all(Array.from({ length: 200 }, (_, i) => tokens.take('ten_flood', 10, 1, 5_000_000 + (i % 50))));
    expect(waits.every((w) => w > 0)).toBe(true);
    expect(Math.max(...waits)).toBeCloseTo(0.1, 5);
    expect(Math.min(...waits)).toBeCloseTo(0.051, 5);
    expect(statements).toBe(0);
    // When it is due the bucket is asked again, and has it.
    expect(await tokens.take('ten_flood', 10, 1, 5_000_100)).toBe(0);
    expect(statements).toBe(1);
  });

  it('a refusal does not outlive the limit it was computed under: a raised rate is asked at once', async () => {
    const tokens = rateTokens(ts.store);
    expect(await tokens.take('ten_raised', 1, 1, 6_000_000)).toBe(0);
    // At 1/s the next token is a second away.
    expect(await tokens.take('ten_raised', 1, 1, 6_000_000)).toBeCloseTo(1, 5);
    statements = 0;
    // The tenant's limit is raised to 100/s: 20 ms later the bucket holds a token again.
    expect(await tokens.take('ten_raised', 100, 1, 6_000_020)).toBe(0);
    expect(statements).toBe(1);
  });
});
