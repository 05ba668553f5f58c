/** The project's chats by latest activity, for the console's conversation list (GET /chats). */
import { decodeTimeCursor, encodeTimeCursor } from './time-cursor.js';
import type { Store } from '../../store/index.js';
import type { ChatListEntry } from '../../store/chat-list.js';

export type { ChatListEntry };

export interface ChatListPage {
  entries: ChatListEntry[];
  nextCursor: string | null;
}

export function chatList(deps: { store: Store }) {
  return {
    async page(tenantId: string, q: { limit: number; cursor?: string; search?: string }): Promise<ChatListPage> {
      const at = q.cursor ? decodeTimeCursor(q.cursor) : undefined;
      const entries = await deps.store.chatList.list({
        tenantId,
        limit: q.limit + 1,
        search: q.search?.trim() || undefined,
        after: at && { activityAt: at.atMs, id: at.id },
      });
      const more = entries.length > q.limit;
      const page = more ? entries.slice(0, q.limit) : entries;
      const last = page[page.length - 1];
      return { entries: page, nextCursor: more && last ? encodeTimeCursor(last.activityAt, last.chat.id) : null };
    },
  };
}

export type ChatList = ReturnType<typeof chatList>;
