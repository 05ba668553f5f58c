/** A bubble's time says its day when it is not today (a sales rep reading a thread that spans days). */
import { describe, expect, it } from 'vitest';
import { messageTime } from '../../console/src/times.js';

describe("a message's time in the console", () => {
  const now = new Date(2026, 10, 28, 15, 0, 0);
  it('is the time of day today', () => {
    expect(messageTime(new Date(2026, 10, 28, 9, 5, 7).toISOString(), now, 'en-US')).toBe('09:05:07 AM');
  });
  it('carries its date on another day, and its year in another year', () => {
    expect(messageTime(new Date(2026, 10, 25, 9, 5, 7).toISOString(), now, 'en-US')).toBe('Nov 25, 09:05 AM');
    expect(messageTime(new Date(2025, 11, 31, 23, 59).toISOString(), now, 'en-US')).toBe('Dec 31, 2025, 11:59 PM');
  });
});
