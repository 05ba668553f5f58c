/**
 * Chats: first-touch creation (one handle → the lead's direct chat, several →
 * a group with a `ch_` id), messages into an existing chat, and the history.
 */
import { ApiError } from '../../errors/registry.js';
import type { Chat, Message, PhoneLine, Tenant } from '../../store/index.js';
import { newUuid, randomHex } from '../ids.js';
import { normalizeHandle } from '../handles.js';
import type { MessagingDeps } from './deps.js';
import type { Idempotency, Outcome } from './idempotency.js';
import { newMessageId, type Outbound } from './outbound.js';
import type { Limits } from './limits.js';
import { conversations } from './conversations.js';
import { assertGroupable, validateParts, type PartInput } from './parts.js';
import { assertEffect, assertService } from './rules.js';
import { viaDriver } from './driver-errors.js';
import { publicMessage } from './views.js';

export interface CreateChatRequest {
  to: string | string[];
  message: { parts: PartInput[]; parallel_attachments?: boolean; effect?: string };
  phone_line_id?: string;
  display_name?: string;
  idempotency_key?: string;
  service?: string;
}

export interface ChatMessageRequest {
  message: { parts: PartInput[] };
  parallel_attachments?: boolean;
}

export function chatsService(deps: MessagingDeps, lim: Limits, out: Outbound, idem: Idempotency) {
  const { store, clock, drivers } = deps;
  const convos = conversations(deps);

  async function getChat(tenant: Tenant, id: string): Promise<Chat> {
    const chat = await store.conversations.getChat(tenant.id, id);
    if (!chat) throw new ApiError(2002, `chat ${id} not found`);
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

  /** Sends prepared parts in order: text bubbles, links, media (grouped or one by one). */
  async function sendParts(tenant: Tenant, chat: Chat, parts: PartInput[], prepared: Awaited<ReturnType<typeof prepareParts>>, opts: { parallel?: boolean; pinned?: PhoneLine; effect?: string }): Promise<Message[]> {
    const { valid, files } = prepared;
    const sent: Message[] = [];
    let pinned = opts.pinned;
    const sendOne = async (content: Parameters<Outbound['send']>[2]) => {
      const r = await out.send(tenant, chat, content, { pinnedLine: chat.line_id ? undefined : pinned });
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
    }
    return sent;
  }

  async function createGroup(tenant: Tenant, handles: string[], req: CreateChatRequest, pinned?: PhoneLine): Promise<Outcome> {
    const valid = validateParts(req.message.parts, { firstTouch: true, group: true });
    if (valid.texts.length !== 1 || req.message.parts.length !== 1) {
      throw new ApiError(1002, 'a group is created with one text part; send more parts after it exists');
    }
    if (req.message.effect !== undefined) {
      throw new ApiError(4099, 'a group is created without an effect; send the effect with a later message', { http: 422 });
    }
    const { line } = await lim.reserveFirstTouchLine(tenant, 'create_group', pinned);
    const now = clock.now();
    const text = valid.texts[0]!.value;
    const { chatKey, guid } = await viaDriver(() => drivers.forLine(line).createGroup(handles, text), 'group creation');
    const chat = await store.conversations.ensureChat({
      id: `ch_${randomHex(16)}`,
      tenant_id: tenant.id,
      is_group: true,
      lead_id: null,
      line_id: line.id,
      convo_id: newUuid(),
      chat_key: chatKey,
      display_name: req.display_name ?? null,
      created_at: now,
    });
    for (const h of handles) {
      await store.conversations.upsertLead({ id: newUuid(), tenant_id: tenant.id, handle: h, created_at: now });
      await store.conversations.addParticipant(chat.id, h, now);
    }
    const message: Message = {
      id: newMessageId(now),
      tenant_id: tenant.id, chat_id: chat.id, line_id: line.id, direction: 'outbound', sender_handle: line.phone_number,
      parts: [{ type: 'text', value: text }], effect: null, status: 'sent', provider_guid: guid, first_touch: true,
      error_code: null, sent_at: now, delivered_at: null, read_at: null, edited_at: null,
    };
    await store.messages.insert(message);
    return { status: 201, body: { chat: await chatView(chat), message: publicMessage(message) } };
  }

  async function chatView(chat: Chat) {
    return {
      id: chat.id,
      is_group: chat.is_group,
      handles: await store.conversations.participants(chat.id),
      phone_line_id: chat.line_id,
      convo_id: chat.convo_id,
      display_name: chat.display_name,
      created_at: new Date(chat.created_at).toISOString(),
    };
  }

  return {
    getChat,

    async create(tenant: Tenant, req: CreateChatRequest): Promise<Outcome> {
      assertService(req.service);
      assertEffect(req.message.effect);
      const raw = Array.isArray(req.to) ? req.to : [req.to];
      if (raw.length === 0) throw new ApiError(1001, 'to needs at least one handle');
      const handles = [...new Set(raw.map((h) => {
        const n = normalizeHandle(h);
        if (!n) throw new ApiError(1003, `"${h}" is neither an E.164 number nor an email handle`);
        return n.value;
      }))];
      const pinned = req.phone_line_id ? await store.lines.get(req.phone_line_id) : undefined;
      if (req.phone_line_id && (!pinned || pinned.tenant_id !== tenant.id)) {
        throw new ApiError(2006, `phone_line_id ${req.phone_line_id} is not assigned to this project`);
      }
      const { idempotency_key, ...request } = req;
      return idem.run(
        {
          tenantId: tenant.id,
          route: 'chats',
          key: idempotency_key,
          identity: { recipient: handles, body: req.message.parts },
          request: { ...request, to: handles },
        },
        async () => {
          if (handles.length > 1) return createGroup(tenant, handles, req, pinned);
          const existing = await convos.find(tenant, handles[0]!);
          const firstTouch = !existing?.chat.line_id;
          const prepared = await prepareParts(tenant, req.message.parts, { parallel: req.message.parallel_attachments, firstTouch, group: false });
          // Checked before the lead is written: a refused request leaves nothing behind.
          const { chat, lead } = existing ?? (await convos.create(tenant, handles[0]!));
          const sent = await sendParts(tenant, chat, req.message.parts, prepared, { parallel: req.message.parallel_attachments, pinned, effect: req.message.effect });
          const fresh = (await store.conversations.getChat(tenant.id, chat.id))!;
          // 201 when this request created the chat; an existing direct chat answers 200.
          return { status: existing ? 200 : 201, body: { chat: { ...(await chatView(fresh)), lead_id: lead.id }, message: publicMessage(sent[sent.length - 1]!) } };
        },
      );
    },

    async postMessage(tenant: Tenant, chatId: string, req: ChatMessageRequest) {
      const chat = await getChat(tenant, chatId);
      if (chat.is_group && !chat.line_id) throw new ApiError(3002, 'this group has no line pinned to it');
      const prepared = await prepareParts(tenant, req.message.parts, { parallel: req.parallel_attachments, firstTouch: !chat.line_id, group: chat.is_group });
      const sent = await sendParts(tenant, chat, req.message.parts, prepared, { parallel: req.parallel_attachments });
      const last = sent[sent.length - 1]!;
      return { message: { id: last.id, chat_id: chat.id, status: last.status, delivered_at: last.delivered_at === null ? null : new Date(last.delivered_at).toISOString() } };
    },

    async listMessages(tenant: Tenant, chatId: string, limit: number, cursor?: string) {
      const chat = await getChat(tenant, chatId);
      let before: { sent_at: number; id: string } | undefined;
      if (cursor) {
        try {
          const [t, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
          if (!id || !Number.isFinite(Number(t))) throw new Error('bad cursor');
          before = { sent_at: Number(t), id };
        } catch {
          throw new ApiError(1002, 'cursor is not a value returned as next_cursor');
        }
      }
      const rows = await store.messages.listByChat(chat.id, limit + 1, before);
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      const next_cursor = rows.length > limit && last ? Buffer.from(`${last.sent_at}|${last.id}`).toString('base64url') : null;
      return { messages: page.map(publicMessage), next_cursor };
    },

    chatView,
  };
}

export type ChatsService = ReturnType<typeof chatsService>;
