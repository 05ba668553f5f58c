/**
 * Tapbacks on messages, as the thread view shows them: the tenant's own (sent through
 * POST /messages/{id}/react, recorded as `me`) and the ones a line reports (a contact's, by
 * handle; one made on the line's Mac, as `me`). A person has one tapback on a message at a time.
 * A tapback is not a message: no message.received. One a line reports is `message.reacted` for a
 * project that subscribes to it (the project's own were answered to whoever made them).
 */
import type { Repos, Store } from '../../store/index.js';
import { TAPBACKS, type LineReaction, type Tapback } from '../../drivers/types.js';
import { changeAnnounced, type StatusEvents } from './status-events.js';

/** The sender of the tenant's own tapbacks. */
export const OWN = 'me';

export interface ReactionView {
  reaction: Tapback;
  /** the contact's handle, or `me` */
  from: string;
  at: number;
}

export function messageReactions(deps: { store: Store; statusEvents?: StatusEvents }) {
  const { store } = deps;
  /** Whether the tapbacks changed (a removal of one the sender does not have changes nothing). */
  const apply = (repos: Pick<Repos, 'reactions'>, messageId: string, sender: string, reaction: Tapback, remove: boolean, at: number) =>
    remove ? repos.reactions.remove(messageId, sender, reaction) : repos.reactions.set({ messageId, sender, reaction, at });

  return {
    /** The tenant's own tapback, once its line took it. */
    recordOwn: (messageId: string, reaction: Tapback, remove: boolean, at: number) => apply(store, messageId, OWN, reaction, remove, at),

    /** A tapback the line reported; false when it is on a message this service does not know. */
    async fromLine(lineId: string, r: LineReaction): Promise<boolean> {
      const target = await store.messages.byProviderGuid(lineId, r.targetGuid);
      if (!target) return false;
      await changeAnnounced(deps.statusEvents, store, 'message.reacted', target, (repos) => apply(repos, target.id, r.from ?? OWN, r.reaction, r.remove, r.atMs), r);
      return true;
    },

    /** Each message's tapbacks, oldest first (messages without any are absent). */
    async of(messageIds: readonly string[]): Promise<Map<string, ReactionView[]>> {
      const out = new Map<string, ReactionView[]>();
      for (const r of await store.reactions.forMessages(messageIds)) {
        if (!(TAPBACKS as readonly string[]).includes(r.reaction)) continue;
        const list = out.get(r.messageId) ?? [];
        list.push({ reaction: r.reaction as Tapback, from: r.sender, at: r.at });
        out.set(r.messageId, list);
      }
      return out;
    },
  };
}

export type MessageReactions = ReturnType<typeof messageReactions>;
