/**
 * POST /api/v1/send: text, media, rich link, or a staged voice note to one
 * recipient (E.164 or Apple ID email). Validation follows the spec's rules in
 * order; the outcome is recorded under the idempotency key.
 */
import { ApiError } from '../../errors/registry.js';
import type { PhoneLine, Tenant } from '../../store/index.js';
import { normalizeHandle } from '../handles.js';
import { NetError, parseAbsoluteUrl } from '../../net/index.js';
import type { MessagingDeps } from './deps.js';
import type { Idempotency, Outcome } from './idempotency.js';
import type { Outbound, OutboundContent } from './outbound.js';
import { conversations, type DirectConversation } from './conversations.js';
import { MAX_PARTS, MAX_TEXT_LENGTH, assertEffect, assertService, containsUrl } from './rules.js';

export interface SendRequest {
  phone: string;
  body?: string;
  attachments?: (string | { attachment_id?: string; url?: string })[];
  effect?: string;
  rich_link?: string | { url: string };
  voice_note?: { voice_note_id: string };
  phone_line_id?: string;
  idempotency_key?: string;
  service?: string;
}

export interface SendResult {
  status: 'sent';
  message_id: string;
  lead_id: string;
  chat_id: string;
  lead_created: boolean;
  convo_id: string;
  phone_line_id: string;
}

/** Attachment ids from the accepted forms: "att_…" or { attachment_id: "att_…" }. */
function attachmentIds(list: NonNullable<SendRequest['attachments']>): string[] {
  return list.map((a, i) => {
    if (typeof a === 'string') {
      if (a.startsWith('vn_')) {
        throw new ApiError(1011, 'a voice_note_id must never be placed in attachments[]; send it as voice_note.voice_note_id', { attachment_index: i });
      }
      return a;
    }
    if (a.url !== undefined && a.attachment_id !== undefined) {
      throw new ApiError(1011, 'an attachment gives either url or attachment_id, not both', { attachment_index: i });
    }
    if (a.attachment_id === undefined) {
      throw new ApiError(1011, 'an attachment needs attachment_id (upload it first with POST /api/v1/attachments)', { attachment_index: i });
    }
    if (a.attachment_id.startsWith('vn_')) {
      throw new ApiError(1011, 'a voice_note_id must never be placed in attachments[]', { attachment_index: i });
    }
    return a.attachment_id;
  });
}

const richLinkOf = (link: SendRequest['rich_link']) => (typeof link === 'string' ? link : link?.url);

/** http(s) only, so the preview can be fetched and nothing else is smuggled in. */
function isHttpUrl(url: string): boolean {
  const parsed = parseAbsoluteUrl(url);
  return !(parsed instanceof NetError) && (parsed.protocol === 'https:' || parsed.protocol === 'http:');
}

/** Request-only rules, in the spec's order; nothing is read or written before they pass. */
function validate(req: SendRequest): void {
  assertService(req.service);
  if (req.voice_note) {
    if (req.rich_link !== undefined) throw new ApiError(4099, 'a voice note cannot be combined with rich_link', { http: 501 });
    const extra = (['body', 'attachments', 'effect'] as const).filter((k) => req[k] !== undefined);
    if (extra.length) throw new ApiError(1011, `a voice-note send is exclusive: remove ${extra.join(', ')}`, { http: 400 });
    if (!req.phone_line_id) throw new ApiError(1001, 'phone_line_id is required with voice_note: use the line returned by staging');
  }
  if (req.body === undefined && req.attachments === undefined && req.rich_link === undefined && !req.voice_note) {
    throw new ApiError(1001, 'nothing to send: give body, attachments, rich_link or voice_note');
  }
  if (req.body !== undefined && req.body.length > MAX_TEXT_LENGTH) {
    throw new ApiError(1009, `body is ${req.body.length} characters; the maximum is ${MAX_TEXT_LENGTH}`);
  }
  assertEffect(req.effect);
  if (req.attachments !== undefined) {
    if (req.attachments.length === 0) throw new ApiError(1002, 'attachments is empty');
    // The text goes as its own bubble, then each attachment: every one is a part.
    const parts = req.attachments.length + (req.body !== undefined ? 1 : 0);
    if (parts > MAX_PARTS) throw new ApiError(1006, `this send has ${parts} parts (body and attachments); the maximum is ${MAX_PARTS}`);
    if (req.rich_link !== undefined) throw new ApiError(1002, 'rich_link cannot be combined with attachments: send the link in its own message');
    if (req.effect !== undefined && req.body === undefined) {
      throw new ApiError(1002, 'an effect goes with a text bubble: give body with it, or send the attachments without effect');
    }
  }
  const link = richLinkOf(req.rich_link);
  if (link !== undefined && !isHttpUrl(link)) throw new ApiError(1002, `rich_link "${link.slice(0, 200)}" is not an http(s) URL`);
}

const idsOf = (c: DirectConversation) => ({ lead_id: c.lead.id, chat_id: c.chat.id, lead_created: c.leadCreated, convo_id: c.chat.convo_id });

export function sendService(deps: MessagingDeps, out: Outbound, idem: Idempotency) {
  const { store } = deps;
  const convos = conversations(deps);

  /** The content to send, resolved before any lead or chat is written: a bad reference leaves nothing behind. */
  async function contentOf(tenant: Tenant, req: SendRequest, pinned: PhoneLine | undefined): Promise<{ content: OutboundContent; textFirst?: OutboundContent }> {
    if (req.voice_note) {
      if (!deps.drivers.forLine(pinned!).capabilities().has('voice_notes')) {
        throw new ApiError(4099, 'this line does not support voice notes', { http: 501 });
      }
      const file = await deps.media.voiceNote(tenant.id, pinned!.id, req.voice_note.voice_note_id);
      return { content: { kind: 'voice_note', file, voiceNoteId: req.voice_note.voice_note_id } };
    }
    if (req.attachments !== undefined) {
      const files = await deps.media.attachments(tenant.id, attachmentIds(req.attachments));
      // Text goes as its own bubble first, then the media.
      const textFirst: OutboundContent | undefined = req.body !== undefined ? { kind: 'text', text: req.body, effect: req.effect } : undefined;
      return { content: { kind: 'media', files, grouped: false }, textFirst };
    }
    const url = richLinkOf(req.rich_link);
    if (req.body !== undefined) return { content: { kind: 'text', text: req.body, effect: req.effect, richLinkUrl: url } };
    return { content: { kind: 'rich_link', url: url! } };
  }

  async function perform(tenant: Tenant, req: SendRequest, phone: string): Promise<Outcome> {
    const pinned = req.phone_line_id ? await store.lines.get(req.phone_line_id) : undefined;
    if (req.phone_line_id && (!pinned || pinned.tenant_id !== tenant.id)) {
      throw new ApiError(2006, `phone_line_id ${req.phone_line_id} is not assigned to this project`);
    }
    let conversation = await convos.find(tenant, phone);
    try {
      const { content, textFirst } = await contentOf(tenant, req, pinned);
      // A first message into a new chat carries no URL (1005), as on POST /api/v1/chats.
      if (!conversation?.chat.line_id && (req.rich_link !== undefined || (req.body !== undefined && containsUrl(req.body)))) {
        throw new ApiError(1005, 'the first message in a new chat cannot contain URLs: send text first, links once the chat exists');
      }
      // Everything the request can be refused for was checked: only now is a lead written.
      conversation ??= await convos.create(tenant, phone);
      const { chat } = conversation;
      const lineFor = (c: OutboundContent) => (c.kind === 'voice_note' ? pinned : chat.line_id ? undefined : pinned);
      if (textFirst) await out.send(tenant, chat, textFirst, { pinnedLine: lineFor(textFirst), recipient: phone });
      const sendContent = () => out.send(tenant, chat, content, { pinnedLine: lineFor(content), recipient: phone });
      const { message, line } = req.voice_note ? await deps.media.useVoiceNote(req.voice_note.voice_note_id, sendContent) : await sendContent();
      const body: SendResult = { status: 'sent', message_id: message.id, ...idsOf(conversation), phone_line_id: line.id };
      return { status: 200, body };
    } catch (err) {
      // The staging line stays authoritative for a voice note, also when it fails.
      const lineId = req.voice_note ? req.phone_line_id : (conversation?.chat.line_id ?? req.phone_line_id ?? null);
      if (err instanceof ApiError) err.context = { ...(conversation && idsOf(conversation)), phone_line_id: lineId, ...err.context };
      throw err;
    }
  }

  return {
    async send(tenant: Tenant, req: SendRequest): Promise<Outcome> {
      validate(req);
      const handle = normalizeHandle(req.phone);
      if (!handle) throw new ApiError(1003, `phone "${req.phone}" is neither an E.164 number (e.g. +14155550100) nor an email handle`);
      const { idempotency_key, ...request } = req;
      return idem.run(
        {
          tenantId: tenant.id,
          route: 'send',
          key: idempotency_key,
          identity: { recipient: handle.value, body: req.body ?? null, voice_note_id: req.voice_note?.voice_note_id ?? null },
          request: { ...request, phone: handle.value },
        },
        () => perform(tenant, req, handle.value),
      );
    },
  };
}
