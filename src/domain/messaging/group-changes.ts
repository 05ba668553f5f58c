/**
 * Changing a group through its line (issue 16 item 11): removing a participant, renaming the
 * group, the line leaving it. Each goes through the line the group lives on (a group exists on
 * its line's Mac only) and is recorded on the chat once the driver has done it, so the chat
 * view shows it: handles, display_name, left_at. Repeating a change that is already true is a
 * no-op that reaches no device, as adding a participant twice is.
 */
import { DomainError } from '../../errors/registry.js';
import type { Chat, PhoneLine, Tenant } from '../../store/index.js';
import type { LineDriver } from '../../drivers/types.js';
import { normalizeHandle } from '../handles.js';
import { sendsFrom } from '../lines/service.js';
import type { MessagingDeps } from './deps.js';
import { viaDriver } from './driver-errors.js';

/** A group as it is now, for the chat view. */
export interface GroupChanged {
  kind: 'group_changed';
  chat: Chat;
  participants: string[];
  lead: null;
}

/** `handle` (normalized) is not in the group now; removing it again changed nothing. */
export interface ParticipantRemoved {
  chatId: string;
  handle: string;
  participants: string[];
}

export const MAX_DISPLAY_NAME_LENGTH = 200;

/**
 * A group's name as given (at creation or by a rename): trimmed; empty or only whitespace is
 * 1002, and so is one over MAX_DISPLAY_NAME_LENGTH characters, counted in code points as the
 * contract's maxLength and every text length are (an emoji is one).
 */
export function groupDisplayName(displayName: string): string {
  const name = displayName.trim();
  if (name === '') throw new DomainError(1002, 'display_name is empty');
  const length = [...name].length;
  if (length > MAX_DISPLAY_NAME_LENGTH) throw new DomainError(1002, `display_name is ${length} characters; the maximum is ${MAX_DISPLAY_NAME_LENGTH}`);
  return name;
}

export function groupChanges(deps: MessagingDeps) {
  const { store, clock, drivers } = deps;

  /** The group by id (2002), a group (1006), on a line of this project that it has not left. */
  async function groupOf(tenant: Tenant, chatId: string, what: string): Promise<Chat & { chat_key: string; line_id: string }> {
    const chat = await store.chats.getChat(tenant.id, chatId);
    if (!chat) throw new DomainError(2002, `chat ${chatId} not found`);
    if (!chat.is_group) throw new DomainError(1006, `${what} works on group chats only; this is a direct chat`);
    if (!chat.chat_key || !chat.line_id) throw new DomainError(4099, 'this group has no chat key or pinned line', { variant: 'context' });
    return chat as Chat & { chat_key: string; line_id: string };
  }

  /** The group's line, when it may act now. */
  async function lineOf(tenant: Tenant, chat: Chat & { line_id: string }): Promise<{ line: PhoneLine; driver: LineDriver }> {
    if (chat.left_at != null) throw new DomainError(4099, 'the line has left this group; it can no longer change it', { variant: 'context' });
    const line = await store.lines.get(chat.line_id);
    if (!line || line.tenant_id !== tenant.id) throw new DomainError(4099, 'this group has no pinned line of this project', { variant: 'context' });
    if (!sendsFrom(line)) throw new DomainError(3002, "this group's line is not active or does not send; the group can only be changed through it");
    const driver = drivers.forLine(line);
    if (!driver.capabilities().has('participants')) throw new DomainError(4099, 'group changes are not available on this line');
    return { line, driver };
  }

  const current = async (tenant: Tenant, chatId: string): Promise<GroupChanged> => {
    const chat = (await store.chats.getChat(tenant.id, chatId))!;
    return { kind: 'group_changed', chat, participants: await store.chats.participants(chat.id), lead: null };
  };

  return {
    async removeParticipant(tenant: Tenant, chatId: string, address: string): Promise<ParticipantRemoved> {
      const chat = await groupOf(tenant, chatId, 'removing a participant');
      const handle = normalizeHandle(address);
      if (!handle) throw new DomainError(1003, `address "${address}" is neither an E.164 number nor an email handle`);
      if ((await store.chats.participants(chat.id)).includes(handle.value)) {
        const { driver } = await lineOf(tenant, chat);
        await viaDriver(() => driver.removeParticipant(chat.chat_key, handle.value), 'participant changes');
        await store.chats.removeParticipant(chat.id, handle.value);
      }
      return { chatId: chat.id, handle: handle.value, participants: await store.chats.participants(chat.id) };
    },

    async rename(tenant: Tenant, chatId: string, displayName: string): Promise<GroupChanged> {
      const name = groupDisplayName(displayName);
      const chat = await groupOf(tenant, chatId, 'renaming');
      if (chat.display_name !== name) {
        const { driver } = await lineOf(tenant, chat);
        await viaDriver(() => driver.renameGroup(chat.chat_key, name), 'group changes');
        await store.chats.setDisplayName(chat.id, name);
      }
      return current(tenant, chat.id);
    },

    async leave(tenant: Tenant, chatId: string): Promise<GroupChanged> {
      const chat = await groupOf(tenant, chatId, 'leaving');
      if (chat.left_at == null) {
        const { driver } = await lineOf(tenant, chat);
        await viaDriver(() => driver.leaveGroup(chat.chat_key), 'group changes');
        await store.chats.markLeft(chat.id, clock.now());
      }
      return current(tenant, chat.id);
    },
  };
}

export type GroupChanges = ReturnType<typeof groupChanges>;
