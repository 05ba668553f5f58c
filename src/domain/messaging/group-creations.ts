/**
 * Group creation (POST /api/v1/chats with several handles): the group exists on the line's Mac
 * once its driver answers; what Blueline writes about it then — the chat, a lead and a
 * participant per handle, the first message — is written in one transaction, so a store that
 * fails in between leaves none of it.
 */
import type { Message, Repos } from '../../store/index.js';
import type { ChatOpened } from './chats.js';
import { newUuid } from '../ids.js';

/** What the line answered for a group it created: the group's chat key and its first message's guid. */
export interface CreatedGroup {
  chatKey: string;
  guid: string;
}

/** A group to record, with the ids chosen for it before its line was called. */
export interface GroupToRecord {
  tenantId: string;
  line: { id: string; phone_number: string };
  handles: string[];
  text: string;
  displayName: string | null;
  chatId: string;
  messageId: string;
  /** When the creation started (the chat's and message's time). */
  at: number;
}

/** Writes the chat, leads, participants and first message of a group the line created; run it in a transaction. */
export async function recordGroup(tx: Repos, g: GroupToRecord, created: CreatedGroup): Promise<ChatOpened> {
  const chat = await tx.chats.ensureChat({
    id: g.chatId,
    tenant_id: g.tenantId,
    is_group: true,
    lead_id: null,
    line_id: g.line.id,
    convo_id: newUuid(),
    chat_key: created.chatKey,
    display_name: g.displayName,
    created_at: g.at,
    left_at: null,
  });
  for (const h of g.handles) {
    await tx.chats.upsertLead({ id: newUuid(), tenant_id: g.tenantId, handle: h, created_at: g.at });
    await tx.chats.addParticipant(chat.id, h, g.at);
  }
  const message: Message = {
    id: g.messageId,
    tenant_id: g.tenantId, chat_id: chat.id, line_id: g.line.id, direction: 'outbound', sender_handle: g.line.phone_number,
    parts: [{ type: 'text', value: g.text }], effect: null, status: 'sent', provider_guid: created.guid, first_touch: true,
    error_code: null, sent_at: g.at, delivered_at: null, read_at: null, edited_at: null,
  };
  await tx.messages.insert(message);
  return { kind: 'chat_opened', created: true, chat, participants: await tx.chats.participants(chat.id), lead: null, message };
}
