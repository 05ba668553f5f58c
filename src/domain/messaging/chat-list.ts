/** The project's chats by latest activity, for the console's conversation list (GET /chats). */
import { decodeListCursor, encodeListCursor } from '../list-cursor.js';
import { compactPhonePiece } from '../handles.js';
import type { Store } from '../../store/index.js';
import type { ChatListEntry } from '../../store/chat-list.js';

export type { ChatListEntry };

export interface ChatListPage {
  entries: ChatListEntry[];
  nextCursor: string | null;
}

/**
 * What a search matches: the text as typed (trimmed), and, for a phone number typed with
 * spaces, dashes, dots or brackets, its digits as handles hold them (E.164 has none), so a
 * number pasted from a signature finds its chat. Undefined: no search.
 */
function searchTerms(search: string | undefined): string[] | undefined {
  const typed = search?.trim();
  if (!typed) return undefined;
  const phone = compactPhonePiece(typed);
  return phone ? [typed, phone] : [typed];
}

export function chatList(deps: { store: Store }) {
  return {
    /**
     * A page, newest activity first. A new message moves its chat to the top, so a walk that
     * followed the chats' activity as it is now would skip a chat not read yet that moved above
     * the page read (and a page read again would repeat one). So the pages after the first list
     * the chats as they were when the first was read: each by its activity up to then (the
     * first page's newest activity, `asOfMs` in the cursor), with the last message it had then.
     * Every chat is listed once per walk; what came after shows on a new first page.
     */
    async page(tenantId: string, q: { limit: number; cursor?: string; search?: string }): Promise<ChatListPage> {
      const at = q.cursor ? decodeListCursor('chats', tenantId, q.cursor) : undefined;
      const entries = await deps.store.chatList.list({
        tenantId,
        limit: q.limit + 1,
        search: searchTerms(q.search),
        asOf: at?.asOfMs,
        after: at && { activityAt: at.atMs!, id: at.id },
      });
      const more = entries.length > q.limit;
      const page = more ? entries.slice(0, q.limit) : entries;
      const last = page[page.length - 1];
      // Every message a chat on the first page had then was at most its newest activity.
      const asOfMs = at?.asOfMs ?? page[0]?.activityAt;
      return { entries: page, nextCursor: more && last ? encodeListCursor('chats', tenantId, { atMs: last.activityAt, asOfMs, id: last.chat.id }) : null };
    },
  };
}

export type ChatList = ReturnType<typeof chatList>;
