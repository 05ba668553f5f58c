/** Tapbacks on messages: at most one per message and sender (see migration 012). */
import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

export interface MessageReaction {
  messageId: string;
  /** the contact's handle, or `me` */
  sender: string;
  reaction: string;
  at: number;
}

export function reactionsRepo(db: Kysely<DB>) {
  return {
    /** The sender's tapback on the message is now `reaction` (replacing any other of theirs). */
    async set(r: MessageReaction): Promise<true> {
      await db
        .insertInto('message_reactions')
        .values({ message_id: r.messageId, sender: r.sender, reaction: r.reaction, reacted_at: r.at })
        .onConflict((oc) => oc.columns(['message_id', 'sender']).doUpdateSet({ reaction: r.reaction, reacted_at: r.at }))
        .execute();
      return true;
    },

    /**
     * Takes the sender's `reaction` back; false when they did not have it. Another tapback of
     * theirs stays: a late removal of the one it replaced must not delete it.
     */
    async remove(messageId: string, sender: string, reaction: string): Promise<boolean> {
      const r = await db.deleteFrom('message_reactions').where('message_id', '=', messageId).where('sender', '=', sender).where('reaction', '=', reaction).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },

    /** The tapbacks on these messages, oldest first. */
    async forMessages(messageIds: readonly string[]): Promise<MessageReaction[]> {
      if (messageIds.length === 0) return [];
      const rows = await db
        .selectFrom('message_reactions')
        .selectAll()
        .where('message_id', 'in', [...messageIds])
        .orderBy('reacted_at')
        .orderBy('sender')
        .execute();
      return rows.map((r) => ({ messageId: r.message_id, sender: r.sender, reaction: r.reaction, at: Number(r.reacted_at) }));
    },
  };
}

export type ReactionsRepo = ReturnType<typeof reactionsRepo>;
