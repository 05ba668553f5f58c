/**
 * POST /api/v1/send: text, media, rich link, or a staged voice note to one
 * recipient (E.164 or Apple ID email). Validation follows the spec's rules in
 * order; the outcome is recorded under the idempotency key.
 */
import { ApiError } from '../../errors/registry.js';
import type { Tenant } from '../../store/index.js';
import { normalizeHandle } from '../handles.js';
import type { MessagingDeps } from './deps.js';
import type { Idempotency, Outcome } from './idempotency.js';
import type { Outbound, OutboundContent } from './outbound.js';
import { conversations } from './conversations.js';
import { ALLOWED_EFFECTS, MAX_TEXT_LENGTH, assertService } from './rules.js';

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
  if (req.effect !== undefined && !(ALLOWED_EFFECTS as readonly string[]).includes(req.effect)) {
    throw new ApiError(4098, `unknown effect "${req.effect}"`, { allowed_effects: ALLOWED_EFFECTS });
  }
}

export function sendService(deps: MessagingDeps, out: Outbound, idem: Idempotency) {
  const { store } = deps;
  const convos = conversations(deps);

  async function perform(tenant: Tenant, req: SendRequest, phone: string): Promise<Outcome> {
    const pinned = req.phone_line_id ? await store.lines.get(req.phone_line_id) : undefined;
    if (req.phone_line_id && (!pinned || pinned.tenant_id !== tenant.id)) {
      throw new ApiError(2006, `phone_line_id ${req.phone_line_id} is not assigned to this project`);
    }
    const { lead, leadCreated, chat } = await convos.direct(tenant, phone);
    const ids = { lead_id: lead.id, chat_id: chat.id, lead_created: leadCreated, convo_id: chat.convo_id };
    try {
      let content: OutboundContent;
      if (req.voice_note) {
        if (!deps.drivers.forLine(pinned!).capabilities().has('voice_notes')) {
          throw new ApiError(4099, 'this line does not support voice notes', { http: 501 });
        }
        const file = await deps.media.voiceNote(tenant.id, pinned!.id, req.voice_note.voice_note_id);
        content = { kind: 'voice_note', file, voiceNoteId: req.voice_note.voice_note_id };
      } else if (req.attachments !== undefined) {
        const files = await deps.media.attachments(tenant.id, attachmentIds(req.attachments));
        if (files.length === 0) throw new ApiError(1002, 'attachments is empty');
        if (req.body !== undefined) {
          // Text goes as its own bubble first, then the media.
          await out.send(tenant, chat, { kind: 'text', text: req.body, effect: req.effect }, { pinnedLine: chat.line_id ? undefined : pinned, recipient: phone });
        }
        content = { kind: 'media', files, grouped: false };
      } else if (req.body !== undefined) {
        const url = typeof req.rich_link === 'string' ? req.rich_link : req.rich_link?.url;
        content = { kind: 'text', text: req.body, effect: req.effect, richLinkUrl: url };
      } else {
        const url = typeof req.rich_link === 'string' ? req.rich_link : req.rich_link!.url;
        content = { kind: 'rich_link', url };
      }
      // A voice note goes out on its staging line; anything else follows the conversation.
      const usePinned = req.voice_note ? pinned : chat.line_id ? undefined : pinned;
      const { message, line } = await out.send(tenant, chat, content, { pinnedLine: usePinned, recipient: phone });
      const body: SendResult = { status: 'sent', message_id: message.id, ...ids, phone_line_id: line.id };
      return { status: 200, body };
    } catch (err) {
      if (err instanceof ApiError) err.context = { ...ids, phone_line_id: chat.line_id ?? req.phone_line_id ?? null, ...err.context };
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
