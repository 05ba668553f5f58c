/** The provider's name for each of a line's one-to-one chats, as its driver learnt it (migration 030). */
import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

export function lineDirectChatsRepo(db: Kysely<DB>) {
  return {
    async get(lineId: string, handle: string): Promise<string | undefined> {
      const r = await db.selectFrom('line_direct_chats').select('chat_key').where('line_id', '=', lineId).where('handle', '=', handle).executeTakeFirst();
      return r?.chat_key;
    },

    /** Writes only when the name is new or changed: an inbound message repeats it every time. */
    async set(lineId: string, handle: string, chatKey: string, nowMs: number): Promise<void> {
      await db
        .insertInto('line_direct_chats')
        .values({ line_id: lineId, handle, chat_key: chatKey, updated_at: nowMs })
        .onConflict((oc) => oc.columns(['line_id', 'handle']).doUpdateSet({ chat_key: chatKey, updated_at: nowMs }).where('line_direct_chats.chat_key', '<>', chatKey))
        .execute();
    },
  };
}

export type LineDirectChatsRepo = ReturnType<typeof lineDirectChatsRepo>;
