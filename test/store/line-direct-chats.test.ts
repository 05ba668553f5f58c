/** The names a line's driver learnt for its one-to-one chats (BlueBubbles' chat guids), on both stores. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS, createTestStore, type TestStore } from '../support/stores.js';

describe.each(STORE_KINDS)("a line's one-to-one chat names on %s", (kind) => {
  let ts: TestStore;
  beforeAll(async () => {
    ts = await createTestStore(kind);
  });
  afterAll(async () => ts?.cleanup());

  it('keeps one name per line and handle, the latest', async () => {
    const chats = ts.store.lineDirectChats;
    expect(await chats.get('line-a', '+14155550100')).toBeUndefined();
    await chats.set('line-a', '+14155550100', 'any;-;+14155550100', 1_000);
    await chats.set('line-a', '+14155550100', 'any;-;+14155550100', 2_000);
    await chats.set('line-b', '+14155550100', 'iMessage;-;+14155550100', 1_000);
    expect(await chats.get('line-a', '+14155550100')).toBe('any;-;+14155550100');
    expect(await chats.get('line-b', '+14155550100')).toBe('iMessage;-;+14155550100');
    await chats.set('line-a', '+14155550100', 'SMS;-;+14155550100', 3_000);
    expect(await chats.get('line-a', '+14155550100')).toBe('SMS;-;+14155550100');
  });
});
