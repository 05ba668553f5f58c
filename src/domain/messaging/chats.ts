/**
 * Chats: first-touch creation (one handle → the lead's direct chat, several →
 * a group with a `ch_` id), messages into an existing chat, and the history.
 */
import { DomainError } from '../../errors/registry.js';
import type { Chat, Lead, Message, PhoneLine, Tenant } from '../../store/index.js';
import { normalizeHandle } from '../handles.js';
import type { MessagingDeps } from './deps.js';
import { noKey, step, type Claim, type Idempotency } from './idempotency.js';
import type { Outbound } from './outbound.js';
import type { Limits } from './limits.js';
import { directChats } from './direct-chats.js';
import { assertGroupable, validateParts, type PartInput } from './parts.js';
import { assertEffect, assertService } from './rules.js';
import { CHATS_ROUTE, groupCreations } from './group-creations.js';
import { groupDisplayName } from './group-changes.js';
import { decodeListCursor, encodeListCursor } from '../list-cursor.js';

/** The messages a request's parts became, in order, and the message of each part (grouped media share one). */
export interface PartsSent {
  messages: Message[];
  partMessageIds: string[];
}

export interface CreateChatInput {
  /** One handle (the lead's direct chat) or several (a new group). */
  to: string[];
  parts: PartInput[];
  parallelAttachments?: boolean;
  effect?: string;
  phoneLineId?: string;
  displayName?: string;
  idempotencyKey?: string;
  service?: string;
}

export interface ChatMessageInput {
  parts: PartInput[];
  parallelAttachments?: boolean;
}

/**
 * A chat with its first message sent: `created` is false when the handle's direct chat already
 * existed (the message went into it). `lead` is the direct chat's lead; null for a group.
 */
export interface ChatOpened {
  kind: 'chat_opened';
  created: boolean;
  chat: Chat;
  participants: string[];
  lead: Lead | null;
  /** The last message sent. */
  message: Message;
}

/** One page of a chat's history, newest first; `nextCursor` continues it. */
export interface ChatPage {
  messages: Message[];
  nextCursor: string | null;
}

export function chatsService(deps: MessagingDeps, lim: Limits, out: Outbound, idem: Idempotency) {
  const { store } = deps;
  const direct = directChats(deps);
  const groups = groupCreations(deps);

  async function getChat(tenant: Tenant, id: string): Promise<Chat> {
    const chat = await store.chats.getChat(tenant.id, id);
    if (!chat) throw new DomainError(2002, `chat ${id} not found`);
    return chat;
  }

  /** Checks the parts and resolves their attachments; nothing is written. Errors name the part. */
  async function prepareParts(tenant: Tenant, parts: PartInput[], opts: { parallel?: boolean; firstTouch: boolean; group: boolean }) {
    const valid = validateParts(parts, { firstTouch: opts.firstTouch, group: opts.group, parallel: opts.parallel });
    // attachment_index counts parts on the chat routes, as their shape errors do.
    const files = valid.media.length ? await deps.media.attachments(tenant.id, valid.media.map((m) => m.attachmentId), valid.media.map((m) => m.index)) : [];
    if (opts.parallel) assertGroupable(files, valid.media);
    return { valid, files };
  }

  /**
   * Sends prepared parts in order: text bubbles, links, media (grouped or one by one). Grouped
   * media parts are consecutive (validateParts), so the group goes at its first image's place.
   */
  async function sendParts(
    tenant: Tenant,
    chat: Chat,
    parts: PartInput[],
    prepared: Awaited<ReturnType<typeof prepareParts>>,
    opts: { parallel?: boolean; pinned?: PhoneLine; effect?: string; claim?: Claim },
  ): Promise<PartsSent> {
    const { valid, files } = prepared;
    const sent: Message[] = [];
    const partMessageIds: string[] = [];
    let pinned = opts.pinned;
    const claim = opts.claim ?? noKey;
    // Each message answered from the one a crashed first attempt under the same key sent, if it did (idempotency.ts).
    const sendOne = async (content: Parameters<Outbound['send']>[2]) => {
      const r = await step(claim, sent.length, (record) => out.send(tenant, chat, content, { pinnedLine: chat.line_id ? undefined : pinned, record }), (m) => ({ message: m }));
      pinned = undefined;
      sent.push(r.message);
    };
    let fileCursor = 0;
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!;
      if (p.type === 'text') await sendOne({ kind: 'text', text: p.value!, effect: sent.length === 0 ? opts.effect : undefined });
      else if (p.type === 'link' || p.type === 'rich_link') await sendOne({ kind: 'rich_link', url: valid.richLinks.find((l) => l.index === i)!.url });
      else if (p.type === 'media' && opts.parallel) {
        if (fileCursor === 0) await sendOne({ kind: 'media', files, grouped: true });
        fileCursor = files.length;
      } else if (p.type === 'media') await sendOne({ kind: 'media', files: [files[fileCursor++]!], grouped: false });
      // The part's message: the one just sent, or for grouped images (contiguous: validateParts) their group's.
      partMessageIds.push(sent[sent.length - 1]!.id);
    }
    return { messages: sent, partMessageIds };
  }

  async function createGroup(tenant: Tenant, handles: string[], req: CreateChatInput, claim: Claim, pinned?: PhoneLine): Promise<ChatOpened> {
    // With the flag too: a group's single text part is no grouped delivery (1002), as on a direct chat.
    const valid = validateParts(req.parts, { firstTouch: true, group: true, parallel: req.parallelAttachments });
    if (valid.texts.length !== 1 || req.parts.length !== 1) {
      throw new DomainError(1002, 'a group is created with one text part; send more parts after it exists');
    }
    if (req.effect !== undefined) {
      throw new DomainError(4099, 'a group is created without an effect; send the effect with a later message', { variant: 'context' });
    }
    // The rename's rule (trimmed, 1002 when empty or too long), checked before a line is reserved.
    const displayName = req.displayName === undefined ? null : groupDisplayName(req.displayName);
    const reservation = await lim.reserveFirstTouchLine(tenant, 'create_group', pinned);
    const request = { handles, text: valid.texts[0]!.value, displayName, idempotencyKey: req.idempotencyKey };
    return groups.create(tenant, reservation, request, claim);
  }

  return {
    getChat,

    /** Opens the chat with its first message, or answers what the first request under the same idempotency key answered. */
    async create(tenant: Tenant, req: CreateChatInput): Promise<ChatOpened> {
      assertService(req.service);
      assertEffect(req.effect);
      if (req.to.length === 0) throw new DomainError(1001, 'to needs at least one handle');
      // No parts is as missing as no `message` (1001 here); a part's own missing field is the chat parts' 1003 (parts.ts).
      if (req.parts.length === 0) throw new DomainError(1001, 'message.parts needs at least one part');
      const handles = [...new Set(req.to.map((h) => {
        const n = normalizeHandle(h);
        if (!n) throw new DomainError(1003, `"${h}" is neither an E.164 number nor an email handle`);
        return n.value;
      }))];
      const pinned = req.phoneLineId ? await store.lines.get(req.phoneLineId) : undefined;
      if (req.phoneLineId && (!pinned || pinned.tenant_id !== tenant.id)) {
        throw new DomainError(2006, `phone_line_id ${req.phoneLineId} is not assigned to this project`);
      }
      const { idempotencyKey, ...request } = req;
      return idem.run(
        {
          tenantId: tenant.id,
          route: CHATS_ROUTE,
          key: idempotencyKey,
          identity: { recipient: handles, body: req.parts },
          identityWords: 'different recipients (to) or message parts',
          request: { ...request, to: handles },
          unsettled: () => groups.unsettled(tenant.id, idempotencyKey!),
        },
        async (claim): Promise<ChatOpened> => {
          if (handles.length > 1) return createGroup(tenant, handles, req, claim, pinned);
          const existing = await direct.find(tenant, handles[0]!);
          const firstTouch = !existing?.chat.line_id;
          const prepared = await prepareParts(tenant, req.parts, { parallel: req.parallelAttachments, firstTouch, group: false });
          // Checked before the lead is written: a refused request leaves nothing behind.
          const { chat, lead } = existing ?? (await direct.create(tenant, handles[0]!));
          const { messages: sent } = await sendParts(tenant, chat, req.parts, prepared, { parallel: req.parallelAttachments, pinned, effect: req.effect, claim });
          const fresh = (await store.chats.getChat(tenant.id, chat.id))!;
          // A retry resuming after a crash: the chat may be this request's own.
          const created = !existing || (claim.takenOver && fresh.created_at >= claim.since);
          return { kind: 'chat_opened', created, chat: fresh, participants: await store.chats.participants(fresh.id), lead, message: sent[sent.length - 1]! };
        },
      );
    },

    /** Sends the parts into an existing chat; returns the messages sent, in order, and each part's. */
    async postMessage(tenant: Tenant, chatId: string, req: ChatMessageInput): Promise<PartsSent> {
      const chat = await getChat(tenant, chatId);
      if (chat.is_group && !chat.line_id) throw new DomainError(3002, 'this group has no line pinned to it');
      if (chat.is_group && chat.left_at != null) throw new DomainError(4099, 'the line has left this group; it takes no more messages', { variant: 'context' });
      const prepared = await prepareParts(tenant, req.parts, { parallel: req.parallelAttachments, firstTouch: !chat.line_id, group: chat.is_group });
      return sendParts(tenant, chat, req.parts, prepared, { parallel: req.parallelAttachments });
    },

    async listMessages(tenant: Tenant, chatId: string, limit: number, cursor?: string): Promise<ChatPage> {
      const chat = await getChat(tenant, chatId);
      // The chat's own cursors only: one of another chat (or project) is 1002, not a page of this one.
      const scope = `${tenant.id}|${chat.id}`;
      const at = cursor ? decodeListCursor('chatMessages', scope, cursor) : undefined;
      const before = at && { sent_at: at.atMs!, id: at.id };
      const rows = await store.messages.listByChat(chat.id, limit + 1, before);
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      const nextCursor = rows.length > limit && last ? encodeListCursor('chatMessages', scope, { atMs: last.sent_at, id: last.id }) : null;
      return { messages: page, nextCursor };
    },
  };
}

export type ChatsService = ReturnType<typeof chatsService>;
