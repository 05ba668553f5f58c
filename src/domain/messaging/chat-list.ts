/** The project's chats by latest activity, for the console's conversation list (GET /chats). */
import { DomainError } from '../../errors/registry.js';
import type { Store } from '../../store/index.js';
import type { ChatListEntry } from '../../store/chat-list.js';

export type { ChatListEntry };

export interface ChatListPage {
  entries: ChatListEntry[];
  nextCursor: string | null;
}

const encode = (e: ChatListEntry) => Buffer.from(`${e.activityAt}|${e.chat.id}`).toString('base64url');

function decode(cursor: string): { activityAt: number; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString().split('|');
  // A time in ms is at most 15 digits; a longer number would overflow PostgreSQL's bigint (500, not 1002).
  if (!at || !id || !/^\d{1,15}$/.test(at)) throw new DomainError(1002, 'cursor is not a next_cursor this list gave');
  return { activityAt: Number(at), id };
}

export function chatList(deps: { store: Store }) {
  return {
    async page(tenantId: string, q: { limit: number; cursor?: string; search?: string }): Promise<ChatListPage> {
      const entries = await deps.store.chatList.list({
        tenantId,
        limit: q.limit + 1,
        search: q.search?.trim() || undefined,
        after: q.cursor ? decode(q.cursor) : undefined,
      });
      const more = entries.length > q.limit;
      const page = more ? entries.slice(0, q.limit) : entries;
      return { entries: page, nextCursor: more ? encode(page[page.length - 1]!) : null };
    },
  };
}

export type ChatList = ReturnType<typeof chatList>;
