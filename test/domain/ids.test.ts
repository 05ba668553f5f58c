import { describe, expect, it } from 'vitest';
import { timeSortableId } from '../../src/domain/ids.js';

describe('time-sortable ids', () => {
  it('sort in the order they were made, within one millisecond too', () => {
    const ms = Date.UTC(2026, 10, 23, 12, 0, 0);
    const made = [
      ...Array.from({ length: 500 }, () => timeSortableId(ms)),
      ...Array.from({ length: 500 }, () => timeSortableId(ms + 1)),
      timeSortableId(ms + 1000),
    ];
    expect(new Set(made).size).toBe(made.length);
    expect([...made].sort()).toEqual(made);
    for (const id of made) expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  it('keep counting up within a millisecond while ids for other times are made in between', () => {
    // An inbound message's id carries the provider's time, its event's the service clock's:
    // five events recorded in one millisecond must still list in the order they were recorded.
    const now = Date.UTC(2026, 10, 24, 9, 0, 0);
    const events: string[] = [];
    for (let i = 0; i < 300; i++) {
      timeSortableId(now - 60_000 + i); // the message, at its own time
      events.push(timeSortableId(now));
    }
    expect([...events].sort()).toEqual(events);
  });

  it('start from a random point each millisecond', () => {
    const tails = new Set(Array.from({ length: 50 }, (_, i) => timeSortableId(1_000_000 + i * 7).slice(10)));
    expect(tails.size).toBe(50);
  });
});
