/**
 * Finding a send the service lost track of (it stopped between recording the message and
 * BlueBubbles' answer). BlueBubbles keeps a send's tempGuid only in memory (its HTTP
 * service's sendCache) and hands it back once, in the send's answer or in the `new-message`
 * webhook of its emitMessageMatch; nothing stored on the Mac can be looked up by it. What the
 * Mac does keep is the message itself, so the send is found by its content: our own messages
 * (isFromMe) in the chat since the send was recorded (POST /api/v1/message/query, after, sort ASC,
 * with attachments), the first whose text or attachment name is what we sent and whose guid no
 * other message of ours already holds; `failed` if the Mac stored it with an error. A group's chat is its key (chatGuid). A person's chat is
 * not asked for by a guid: one the send may have made (/chat/new, AppleScript) is named as the
 * Mac names it (any;-;…, SMS;-;…), and the query answers 200 with no messages for a chatGuid it
 * does not have (MessageRouter.query). So our messages in every chat are read, with their chat,
 * and those in a one-to-one chat with the person kept.
 */
import type { BBMessage } from './api-types.js';
import type { BlueBubblesClient } from './client.js';
import type { GroupLookup, GroupProbe, SendLookup, SendProbe } from '../types.js';
import { isGroupChat, normalizeHandle, sanitizeText, storedFailed } from './mapping.js';
import { directAddressOf } from './direct-chats.js';

/** Messages are searched from a little before the send was recorded (the Mac's clock may differ from ours). */
export const LOOKUP_SLACK_MS = 60_000;
const PAGE = 1000;

/** A voice note goes out renamed to .caf: names are compared without their extension. */
const stem = (name: string) => name.replace(/\.[^./]*$/, '').toLowerCase();

/**
 * The Mac's `text` is what BlueBubbles serializes: U+FFFC removed and trimmed (sanitizeText), so
 * "See you at 5pm.\n" comes back as "See you at 5pm.". Both sides are compared that way.
 */
const sameText = (mac: string | null | undefined, ours: string) => typeof mac === 'string' && sanitizeText(ours) !== '' && sanitizeText(mac) === sanitizeText(ours);

function matches(m: BBMessage, probe: SendProbe): boolean {
  if (probe.texts.some((t) => sameText(m.text, t))) return true;
  const names = new Set(probe.filenames.map(stem));
  return names.size > 0 && (m.attachments ?? []).some((a) => typeof a.transferName === 'string' && names.has(stem(a.transferName)));
}

/** Throws BlueBubbles' own errors (the caller says `unknown` then). */
export async function lookupSentMessage(client: BlueBubblesClient, probe: SendProbe): Promise<SendLookup> {
  const after = Math.max(0, probe.recordedAt - LOOKUP_SLACK_MS);
  const { target } = probe;
  const person = target.kind === 'direct' ? normalizeHandle(target.handle) : undefined;
  const where = target.kind === 'group' ? { chatGuid: target.chatKey, with: ['attachment'] } : { with: ['chat', 'attachment'] };
  const inChat = (m: BBMessage) => person === undefined || (m.chats ?? []).some((c) => directAddressOf(c) === person);
  for (let offset = 0; ; offset += PAGE) {
    const env = await client.request<BBMessage[]>('POST', '/api/v1/message/query', { json: { ...where, after, sort: 'ASC', offset, limit: PAGE } });
    const page = Array.isArray(env.data) ? env.data : [];
    for (const m of page) {
      if (m.isFromMe !== true || typeof m.guid !== 'string' || m.guid === '') continue;
      if (!inChat(m) || !matches(m, probe) || (await probe.isClaimed(m.guid))) continue;
      // Stored with an error: Messages failed it (22: not delivered), so it did not reach the person.
      return storedFailed(m) ? { state: 'failed', guid: m.guid } : { state: 'sent', guid: m.guid };
    }
    if (page.length < PAGE) return { state: 'not_sent' };
  }
}

/**
 * Finding a group created while the service lost track of it. BlueBubbles' chat query
 * (POST /api/v1/chat/query) filters by nothing but a chat guid, which we do not have; the message
 * query without a chatGuid covers every chat. So: our own messages since the creation was recorded,
 * with their chat and its members (`with: chat, chat.participants`, as MessageRouter.query takes
 * them), the first whose text is the group's first message, in a group chat whose members are the
 * ones asked for (when BlueBubbles lists them), and whose guid no message of ours already holds.
 */
export async function lookupCreatedGroup(client: BlueBubblesClient, probe: GroupProbe): Promise<GroupLookup> {
  const after = Math.max(0, probe.recordedAt - LOOKUP_SLACK_MS);
  const wanted = [...new Set(probe.handles)].sort().join('\n');
  for (let offset = 0; ; offset += PAGE) {
    const env = await client.request<BBMessage[]>('POST', '/api/v1/message/query', {
      json: { with: ['chat', 'chat.participants'], after, sort: 'ASC', offset, limit: PAGE },
    });
    const page = Array.isArray(env.data) ? env.data : [];
    for (const m of page) {
      if (m.isFromMe !== true || typeof m.guid !== 'string' || m.guid === '' || !sameText(m.text, probe.text)) continue;
      const chat = m.chats?.find((c) => isGroupChat(c) && typeof c.guid === 'string' && c.guid !== '');
      if (!chat) continue;
      const members = (chat.participants ?? []).map((p) => p.address).filter((a): a is string => typeof a === 'string');
      if (members.length > 0 && [...new Set(members.map(normalizeHandle))].sort().join('\n') !== wanted) continue;
      if (await probe.isClaimed(m.guid)) continue;
      return { state: 'created', chatKey: chat.guid!, guid: m.guid, ...(storedFailed(m) && { firstMessageFailed: true }) };
    }
    if (page.length < PAGE) return { state: 'not_created' };
  }
}
