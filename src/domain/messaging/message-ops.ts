/** Operations on one message: status lookup, edit (15 minutes), tapbacks; and group participants. */
import { ApiError } from '../../errors/registry.js';
import type { Message, Tenant } from '../../store/index.js';
import { TAPBACKS, type Tapback } from '../../drivers/types.js';
import { normalizeHandle } from '../handles.js';
import type { MessagingDeps } from './deps.js';
import { viaDriver } from './driver-errors.js';
import { publicMessage } from './views.js';
import { MAX_TEXT_LENGTH } from './rules.js';
import { sendsFrom } from '../lines/service.js';

export const EDIT_WINDOW_MS = 15 * 60_000;

export function messageOps(deps: MessagingDeps) {
  const { store, clock, drivers } = deps;

  async function getOwned(tenant: Tenant, id: string): Promise<Message> {
    const m = await store.messages.get(tenant.id, id);
    if (!m) throw new ApiError(2003, `message ${id} not found`);
    return m;
  }

  /** The line that acts on a message: still this tenant's, or nothing may go through it. */
  async function lineOf(tenant: Tenant, m: Message) {
    const line = m.line_id ? await store.lines.get(m.line_id) : undefined;
    if (!line) throw new ApiError(4099, 'the message has no line that could act on it', { http: 422 });
    if (line.tenant_id !== tenant.id) throw new ApiError(4099, "the message's line is no longer assigned to this project", { http: 422 });
    return line;
  }

  return {
    async get(tenant: Tenant, id: string) {
      return { message: publicMessage(await getOwned(tenant, id)) };
    },

    async edit(tenant: Tenant, id: string, newText: string, partIndex = 0) {
      if (newText.length > MAX_TEXT_LENGTH) throw new ApiError(1009, `new_text is ${newText.length} characters; the maximum is ${MAX_TEXT_LENGTH}`);
      const m = await getOwned(tenant, id);
      if (m.direction !== 'outbound') throw new ApiError(1011, `message ${id} is inbound; only outbound messages can be edited`);
      const part = m.parts[partIndex];
      if (!part || part.type !== 'text') throw new ApiError(1002, `edited_part_index ${partIndex} is not a text part of this message`);
      const line = await lineOf(tenant, m);
      const driver = drivers.forLine(line);
      if (!driver.capabilities().has('edit')) throw new ApiError(4099, 'editing is not available on this line', { http: 501 });
      const now = clock.now();
      if (now - m.sent_at > EDIT_WINDOW_MS) throw new ApiError(4001, 'the 15-minute edit window has passed; the message can no longer be edited');
      if (m.status === 'failed' || !m.provider_guid) throw new ApiError(4001, 'the message was not delivered, so it cannot be edited');
      await viaDriver(() => driver.edit(m.provider_guid!, partIndex, newText), 'editing');
      const parts = m.parts.map((p, i) => (i === partIndex ? { type: 'text' as const, value: newText } : p));
      await store.messages.update(m.id, { parts, edited_at: now, status: 'edited' });
      return { status: 'edited' as const, message_id: m.id, new_text: newText, date_edited: new Date(now).toISOString(), edit_history: null };
    },

    async react(tenant: Tenant, id: string, reaction: string, remove: boolean) {
      if (!(TAPBACKS as readonly string[]).includes(reaction)) {
        throw new ApiError(1002, `reaction must be one of ${TAPBACKS.join(', ')}`);
      }
      const m = await getOwned(tenant, id);
      if (!m.provider_guid) throw new ApiError(4001, 'the message was not delivered, so it cannot be reacted to');
      const line = await lineOf(tenant, m);
      await viaDriver(() => drivers.forLine(line).react(m.provider_guid!, reaction as Tapback, remove), 'reactions');
      return { status: remove ? ('removed' as const) : ('reacted' as const), message_id: m.id, reaction, reacted_at: new Date(clock.now()).toISOString() };
    },

    async addParticipant(tenant: Tenant, chatId: string, address: string) {
      const chat = await store.conversations.getChat(tenant.id, chatId);
      if (!chat) throw new ApiError(2002, `chat ${chatId} not found`);
      if (!chat.is_group) throw new ApiError(1006, 'participants can be added to group chats only; this is a direct chat');
      const handle = normalizeHandle(address);
      if (!handle) throw new ApiError(1003, `address "${address}" is neither an E.164 number nor an email handle`);
      if (!chat.chat_key || !chat.line_id) throw new ApiError(4099, 'this group has no chat key or pinned line', { http: 422 });
      const current = await store.conversations.participants(chat.id);
      if (!current.includes(handle.value)) {
        const line = await store.lines.get(chat.line_id);
        if (!line || line.tenant_id !== tenant.id) throw new ApiError(4099, 'this group has no pinned line of this project', { http: 422 });
        if (!sendsFrom(line)) throw new ApiError(3002, "this group's line is not active or does not send; the group can only be changed through it");
        await viaDriver(() => drivers.forLine(line).addParticipant(chat.chat_key!, handle.value), 'participant changes');
        await store.conversations.addParticipant(chat.id, handle.value, clock.now());
      }
      return { chat_id: chat.id, added: handle.value, participants: await store.conversations.participants(chat.id) };
    },
  };
}

export type MessageOps = ReturnType<typeof messageOps>;
