/**
 * A person's chat by BlueBubbles' own guid for it. A Mac names its chat with a person
 * `iMessage;-;+1…`, `SMS;-;+1…` or, on newer macOS, `any;-;+1…`, and a Private API send goes only
 * into a chat Messages has under that very guid: the helper answers "Chat does not exist in
 * IMChatRegistry!" otherwise (BlueBubblesHelper.m getIMChatFromGuid); only AppleScript falls back
 * to addressing the person (api/apple/actions.ts → scripts.ts sendMessageFallback). So the guid
 * BlueBubbles names (a chat /chat/new made, a send's answer, a message that arrived) is kept in the
 * database through the state port, for every process, and `iMessage;-;<handle>` is only the guess
 * for a person this line has never seen.
 */
import type { DriverContext, Target } from '../types.js';
import type { BBChat } from './api-types.js';
import { chatGuidFor, isGroupChat, normalizeHandle } from './mapping.js';

/** A one-to-one chat's guid, or undefined for a group or a chat without one. */
export function directGuidOf(chat: BBChat | undefined): string | undefined {
  return chat && !isGroupChat(chat) && typeof chat.guid === 'string' && chat.guid.includes(';-;') ? chat.guid : undefined;
}

/** The person a one-to-one chat is with, normalized: its chatIdentifier, else the guid's address. */
export function directAddressOf(chat: BBChat): string | undefined {
  if (isGroupChat(chat)) return undefined;
  const address = typeof chat.chatIdentifier === 'string' && chat.chatIdentifier !== '' ? chat.chatIdentifier : chat.guid?.split(';-;')[1];
  return address ? normalizeHandle(address) : undefined;
}

/** /chat/new's `service` for a person whose chat had this guid (ChatValidator.createRules: iMessage or SMS). */
export const serviceOf = (chatGuid: string) => (chatGuid.startsWith('SMS;') ? 'SMS' : 'iMessage');

export function directChats(ctx: Pick<DriverContext, 'lineId' | 'state' | 'now'>) {
  return {
    /** The guid a send to `target` goes to: a group's key; the one BlueBubbles named for the person, else the guess. */
    async guidFor(target: Target): Promise<string> {
      if (target.kind === 'group') return target.chatKey;
      // A store that cannot be read now costs the guess, which a Private API send recovers from.
      const known = await ctx.state.directChatKey(ctx.lineId, normalizeHandle(target.handle)).catch(() => undefined);
      return known ?? chatGuidFor(target);
    },

    /**
     * Keeps the guid BlueBubbles named for the person's chat. A send that went out is not failed
     * because this could not be written: the next one recovers from the guess.
     */
    async remember(handle: string, chatGuid: string): Promise<void> {
      await ctx.state.setDirectChatKey(ctx.lineId, normalizeHandle(handle), chatGuid, ctx.now()).catch(() => undefined);
    },
  };
}
