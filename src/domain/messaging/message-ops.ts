/** Operations on one message: status lookup, edit (15 minutes), tapbacks; and group participants. */
import { DomainError } from '../../errors/registry.js';
import type { Message, Tenant } from '../../store/index.js';
import { TAPBACKS, type Tapback } from '../../drivers/types.js';
import { normalizeHandle } from '../handles.js';
import type { MessagingDeps } from './deps.js';
import { viaDriver } from './driver-errors.js';
import { assertText } from './rules.js';
import { sendsFrom } from '../lines/service.js';
import { messageReactions } from './reactions.js';

export const EDIT_WINDOW_MS = 15 * 60_000;

export interface Edited {
  kind: 'edited';
  messageId: string;
  newText: string;
  editedAt: number;
}

export interface Reacted {
  kind: 'reacted' | 'removed';
  messageId: string;
  reaction: Tapback;
  at: number;
}

/** `handle` (normalized) is in the group now; adding it again changed nothing. */
export interface ParticipantAdded {
  chatId: string;
  handle: string;
  participants: string[];
}

/**
 * A message still `sending` (its line's answer has not come: reconcile.ts) is neither delivered nor
 * failed yet: 409 / 1012, not a retryable 4001, since retrying at once cannot help.
 */
function assertNotSending(m: Message, done: string): void {
  if (m.status === 'sending') {
    throw new DomainError(1012, `message ${m.id} is still being sent (its line has not answered yet), so it cannot be ${done} yet; look it up with GET /api/v1/messages/${m.id} before retrying`);
  }
}

export function messageOps(deps: MessagingDeps) {
  const { store, clock, drivers } = deps;
  const reactions = messageReactions(deps);

  async function getOwned(tenant: Tenant, id: string): Promise<Message> {
    const m = await store.messages.get(tenant.id, id);
    if (!m) throw new DomainError(2003, `message ${id} not found`);
    return m;
  }

  /** The line that acts on a message: still this tenant's, or nothing may go through it. */
  async function lineOf(tenant: Tenant, m: Message) {
    const line = m.line_id ? await store.lines.get(m.line_id) : undefined;
    if (!line) throw new DomainError(4099, 'the message has no line that could act on it', { variant: 'context' });
    if (line.tenant_id !== tenant.id) throw new DomainError(4099, "the message's line is no longer assigned to this project", { variant: 'context' });
    // A line that does not send (inactive, or without `send`) sends nothing: an edit or a tapback
    // goes out to the recipient too (docs/decisions.md, Sending). The message lives on that line
    // only, so no other line can act for it.
    if (!sendsFrom(line)) throw new DomainError(3002, "the message's line is not active or does not send; the message can only be changed through it");
    return line;
  }

  return {
    /** The message, when it is the tenant's (else 2003). */
    get: getOwned,

    async edit(tenant: Tenant, id: string, newText: string, partIndex = 0): Promise<Edited> {
      // Only whitespace is as empty as '' (the spec's 1002): the bubble would be blanked.
      assertText('new_text', newText);
      const m = await getOwned(tenant, id);
      if (m.direction !== 'outbound') throw new DomainError(1011, `message ${id} is inbound; only outbound messages can be edited`);
      const part = m.parts[partIndex];
      if (!part || part.type !== 'text') throw new DomainError(1002, notATextPart(id, m.parts, partIndex));
      const line = await lineOf(tenant, m);
      const driver = drivers.forLine(line);
      if (!driver.capabilities().has('edit')) throw new DomainError(4099, 'editing is not available on this line');
      const now = clock.now();
      if (now - m.sent_at > EDIT_WINDOW_MS) throw new DomainError(4001, 'the 15-minute edit window has passed; the message can no longer be edited');
      assertNotSending(m, 'edited');
      if (m.status === 'failed' || !m.provider_guid) throw new DomainError(4001, 'the message was not delivered, so it cannot be edited');
      await viaDriver(() => driver.edit(m.provider_guid!, partIndex, newText), 'editing');
      const parts = m.parts.map((p, i) => (i === partIndex ? { type: 'text' as const, value: newText } : p));
      await store.messages.update(m.id, { parts, edited_at: now, status: 'edited' });
      return { kind: 'edited', messageId: m.id, newText, editedAt: now };
    },

    async react(tenant: Tenant, id: string, reaction: Tapback, remove: boolean): Promise<Reacted> {
      if (!(TAPBACKS as readonly string[]).includes(reaction)) {
        throw new DomainError(1002, `reaction must be one of ${TAPBACKS.join(', ')}`);
      }
      const m = await getOwned(tenant, id);
      assertNotSending(m, 'reacted to');
      // A message its line failed after accepting it keeps the line's guid; it still reached no one.
      if (m.status === 'failed' || !m.provider_guid) throw new DomainError(4001, 'the message was not delivered, so it cannot be reacted to');
      const line = await lineOf(tenant, m);
      await viaDriver(() => drivers.forLine(line).react(m.provider_guid!, reaction, remove), 'reactions');
      const at = clock.now();
      await reactions.recordOwn(m.id, reaction, remove, at);
      return { kind: remove ? 'removed' : 'reacted', messageId: m.id, reaction, at };
    },

    async addParticipant(tenant: Tenant, chatId: string, address: string): Promise<ParticipantAdded> {
      const chat = await store.chats.getChat(tenant.id, chatId);
      if (!chat) throw new DomainError(2002, `chat ${chatId} not found`);
      if (!chat.is_group) throw new DomainError(1006, 'participants can be added to group chats only; this is a direct chat');
      const handle = normalizeHandle(address);
      if (!handle) throw new DomainError(1003, `address "${address}" is neither an E.164 number nor an email handle`);
      if (!chat.chat_key || !chat.line_id) throw new DomainError(4099, 'this group has no chat key or pinned line', { variant: 'context' });
      const current = await store.chats.participants(chat.id);
      if (!current.includes(handle.value)) {
        if (chat.left_at != null) throw new DomainError(4099, 'the line has left this group; it can no longer change it', { variant: 'context' });
        const line = await store.lines.get(chat.line_id);
        if (!line || line.tenant_id !== tenant.id) throw new DomainError(4099, 'this group has no pinned line of this project', { variant: 'context' });
        // The line is in its group already, as the sender: adding it would list it twice.
        if (handle.value === line.phone_number) throw new DomainError(1002, `${handle.value} is this group's own line, which is in the group already`);
        if (!sendsFrom(line)) throw new DomainError(3002, "this group's line is not active or does not send; the group can only be changed through it");
        await viaDriver(() => drivers.forLine(line).addParticipant(chat.chat_key!, handle.value), 'participant changes');
        await store.chats.addParticipant(chat.id, handle.value, clock.now());
      }
      return { chatId: chat.id, handle: handle.value, participants: await store.chats.participants(chat.id) };
    },
  };
}

export type MessageOps = ReturnType<typeof messageOps>;

/**
 * Why an edit names no text: a send's files are messages of their own (docs/decisions.md,
 * Sending), so the message_id of a send with a file is a file's, and its text is elsewhere.
 */
function notATextPart(id: string, parts: readonly { type: string }[], partIndex: number): string {
  const textAt = parts.flatMap((p, i) => (p.type === 'text' ? [i] : []));
  if (textAt.length === 0) {
    return `message ${id} has no text to edit: each part of a send is a message of its own, and this one is a file. Edit the text's message: the send's message_ids, or part_message_ids of a chat message, name each part's`;
  }
  return `edited_part_index ${partIndex} is not a text part of this message (its text is at ${textAt.join(', ')})`;
}
