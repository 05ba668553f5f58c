/**
 * Sending to one recipient (E.164 or Apple ID email): text, media, rich link, or a
 * staged voice note. Validation follows the spec's rules in order; the outcome is
 * recorded under the idempotency key. Used by POST /api/v1/send and any other caller
 * of the send pipeline.
 */
import { DomainError } from '../../errors/registry.js';
import type { Chat, Lead, Message, PhoneLine, Tenant } from '../../store/index.js';
import { normalizeHandle } from '../handles.js';
import { NetError, parseAbsoluteUrl } from '../../net/index.js';
import type { MessagingDeps } from './deps.js';
import { step, type Claim, type Idempotency, type RecordMessage } from './idempotency.js';
import type { Outbound, OutboundContent } from './outbound.js';
import { directChats, type DirectChat } from './direct-chats.js';
import { DeliveryFailed, DeliveryUnsettled, SendFailed } from './failures.js';
import { MAX_PARTS, assertEffect, assertText, assertService, assertNoUrl } from './rules.js';

/** An attachment as a send names it: the id of an upload (a `url` is refused: upload first). */
export interface AttachmentRef {
  attachmentId?: string;
  url?: string;
}

export interface SendInput {
  /** The recipient as given: an E.164 number or an Apple ID email. */
  phone: string;
  body?: string;
  attachments?: AttachmentRef[];
  effect?: string;
  richLink?: string;
  voiceNoteId?: string;
  phoneLineId?: string;
  idempotencyKey?: string;
  service?: string;
}

/** A message went out: it, the lead and its direct chat, and the line it left from. */
export interface Sent {
  kind: 'sent';
  /** The last message the send recorded (the last attachment's when it had attachments). */
  message: Message;
  /** Every message the send recorded, in order: the body's text bubble first, then one per attachment. */
  messageIds: string[];
  lead: Lead;
  leadCreated: boolean;
  chat: Chat;
  lineId: string;
}

/** The messages a send records: the body's bubble with attachments, and one per attachment; else one. */
const messageCount = (req: SendInput): number =>
  req.attachments === undefined ? 1 : req.attachments.length + (req.body !== undefined ? 1 : 0);

/** Attachment ids, each entry checked (errors name it by attachment_index). */
function attachmentIds(list: AttachmentRef[]): string[] {
  return list.map((a, i) => {
    if (a.url !== undefined && a.attachmentId !== undefined) {
      throw new DomainError(1011, 'an attachment gives either url or attachment_id, not both', { attachmentIndex: i });
    }
    if (a.attachmentId === undefined) {
      throw new DomainError(1011, 'an attachment needs attachment_id (upload it first with POST /api/v1/attachments)', { attachmentIndex: i });
    }
    if (a.attachmentId.startsWith('vn_')) {
      throw new DomainError(1011, 'a voice_note_id must never be placed in attachments[]; send it as voice_note.voice_note_id', { attachmentIndex: i });
    }
    return a.attachmentId;
  });
}

/** http(s) only, so the preview can be fetched and nothing else is smuggled in. */
function isHttpUrl(url: string): boolean {
  const parsed = parseAbsoluteUrl(url);
  return !(parsed instanceof NetError) && (parsed.protocol === 'https:' || parsed.protocol === 'http:');
}

/** Request-only rules, in the spec's order; nothing is read or written before they pass. */
function validate(req: SendInput): void {
  assertService(req.service);
  if (req.voiceNoteId !== undefined) {
    if (req.richLink !== undefined) throw new DomainError(4099, 'a voice note cannot be combined with rich_link');
    const extra = (['body', 'attachments', 'effect'] as const).filter((k) => req[k] !== undefined);
    if (extra.length) throw new DomainError(1011, `a voice-note send is exclusive: remove ${extra.join(', ')}`, { variant: 'exclusive' });
    if (!req.phoneLineId) throw new DomainError(1001, 'phone_line_id is required with voice_note: use the line returned by staging');
  }
  if (req.body === undefined && req.attachments === undefined && req.richLink === undefined && req.voiceNoteId === undefined) {
    throw new DomainError(1001, 'nothing to send: give body, attachments, rich_link or voice_note');
  }
  if (req.body !== undefined) assertText('body', req.body);
  assertEffect(req.effect);
  if (req.attachments !== undefined) {
    if (req.attachments.length === 0) throw new DomainError(1002, 'attachments is empty');
    // The text goes as its own bubble, then each attachment: every one is a part.
    const parts = req.attachments.length + (req.body !== undefined ? 1 : 0);
    if (parts > MAX_PARTS) throw new DomainError(1006, `this send has ${parts} parts (body and attachments); the maximum is ${MAX_PARTS}`);
    if (req.richLink !== undefined) throw new DomainError(1002, 'rich_link cannot be combined with attachments: send the link in its own message');
    if (req.effect !== undefined && req.body === undefined) {
      throw new DomainError(1002, 'an effect goes with a text bubble: give body with it, or send the attachments without effect');
    }
  }
  const link = req.richLink;
  if (link !== undefined && !isHttpUrl(link)) throw new DomainError(1002, `rich_link "${link.slice(0, 200)}" is not an http(s) URL`);
}

export function sendService(deps: MessagingDeps, out: Outbound, idem: Idempotency) {
  const { store } = deps;
  const direct = directChats(deps);

  /**
   * What the send puts in the chat, one message per bubble, in order: the body's text bubble,
   * then each attachment (its own bubble, as on POST /api/v1/chats/{id}/messages), or the voice
   * note, link or text alone. Resolved before any lead or chat is written: a bad reference
   * leaves nothing behind.
   */
  async function contentsOf(tenant: Tenant, req: SendInput, pinned: PhoneLine | undefined): Promise<OutboundContent[]> {
    if (req.voiceNoteId !== undefined) {
      if (!deps.drivers.forLine(pinned!).capabilities().has('voice_notes')) {
        throw new DomainError(4099, 'this line does not support voice notes');
      }
      const file = await deps.media.voiceNote(tenant.id, pinned!.id, req.voiceNoteId);
      return [{ kind: 'voice_note', file, voiceNoteId: req.voiceNoteId }];
    }
    if (req.attachments !== undefined) {
      const files = await deps.media.attachments(tenant.id, attachmentIds(req.attachments));
      const text: OutboundContent[] = req.body !== undefined ? [{ kind: 'text', text: req.body, effect: req.effect }] : [];
      return [...text, ...files.map((f): OutboundContent => ({ kind: 'media', files: [f], grouped: false }))];
    }
    if (req.body !== undefined) return [{ kind: 'text', text: req.body, effect: req.effect, richLinkUrl: req.richLink }];
    return [{ kind: 'rich_link', url: req.richLink! }];
  }

  /** The ids a failure reports: what was known when it happened. */
  function idsOf(err: DomainError, req: SendInput, directChat: DirectChat | undefined) {
    const delivered = err instanceof DeliveryFailed ? err : undefined;
    // The line a recorded message went out on; else the staging line of a voice note (it stays
    // authoritative, also when it fails), the direct chat's line or the requested one.
    const lineId = delivered?.lineId ?? (req.voiceNoteId !== undefined ? req.phoneLineId : (directChat?.chat.line_id ?? req.phoneLineId)) ?? null;
    return {
      leadId: directChat?.lead.id ?? null,
      chatId: directChat?.chat.id ?? null,
      leadCreated: directChat?.leadCreated ?? false,
      convoId: directChat?.chat.convo_id ?? null,
      phoneLineId: lineId,
      ...(delivered && { messageId: delivered.messageId }),
    };
  }

  /** A request whose every message a previous owner of its key sent (a retry after a crash): answered from them. */
  async function answered(tenant: Tenant, phone: string, claim: Claim, count: number): Promise<Sent | undefined> {
    const recorded = claim.recorded.slice(0, count);
    if (recorded.length < count || !recorded.every((m) => m && m.status !== 'failed')) return undefined;
    const directChat = await direct.find(tenant, phone);
    const message = recorded[count - 1]!;
    if (!directChat || !message.line_id) return undefined;
    const { lead, chat } = directChat;
    return { kind: 'sent', message, messageIds: recorded.map((m) => m!.id), lead, leadCreated: lead.created_at >= claim.since, chat, lineId: message.line_id };
  }

  async function perform(tenant: Tenant, req: SendInput, phone: string, claim: Claim): Promise<Sent> {
    const done = await answered(tenant, phone, claim, messageCount(req));
    if (done) return done;
    const pinned = req.phoneLineId ? await store.lines.get(req.phoneLineId) : undefined;
    if (req.phoneLineId && (!pinned || pinned.tenant_id !== tenant.id)) {
      throw new DomainError(2006, `phone_line_id ${req.phoneLineId} is not assigned to this project`);
    }
    let directChat = await direct.find(tenant, phone);
    try {
      const contents = await contentsOf(tenant, req, pinned);
      // A first message into a new chat carries no URL (1005), as on POST /api/v1/chats.
      if (!directChat?.chat.line_id) {
        if (req.richLink !== undefined) throw new DomainError(1005, 'the first message in a new chat cannot contain URLs, and this one has a rich_link: send text first, links once the chat exists');
        if (req.body !== undefined) assertNoUrl('body', req.body);
      }
      // Everything the request can be refused for was checked: only now is a lead written.
      directChat ??= await direct.create(tenant, phone);
      // A retry resuming after a crash: the lead may be this request's own.
      if (claim.takenOver && directChat.lead.created_at >= claim.since) directChat.leadCreated = true;
      const { chat } = directChat;
      const chatLine = directChat.line;
      // A voice note leaves from its staging line; anything else from the chat's line, or for a first touch the requested one.
      const lineFor = (c: OutboundContent) => (c.kind === 'voice_note' ? pinned : chat.line_id ? undefined : pinned);
      const sendOne = (c: OutboundContent, record?: RecordMessage) =>
        out.send(tenant, chat, c, { pinnedLine: lineFor(c), recipient: phone, chatLine, record });
      // Each message answered from the one a crashed first attempt sent, if it did (idempotency.ts).
      const reuse = (m: Message) => ({ message: m, line: { id: m.line_id! } });
      const messageIds: string[] = [];
      let last: { message: Message; line: { id: string } } | undefined;
      for (const [i, c] of contents.entries()) {
        last = await step(
          claim,
          i,
          // A voice note whose send may have gone out stays used until reconciliation knows (it gives it back if not).
          (record) =>
            c.kind === 'voice_note'
              ? deps.media.useVoiceNote(c.voiceNoteId, () => sendOne(c, record), (err) => err instanceof DeliveryUnsettled)
              : sendOne(c, record),
          reuse,
        );
        messageIds.push(last.message.id);
      }
      return { kind: 'sent', message: last!.message, messageIds, lead: directChat.lead, leadCreated: directChat.leadCreated, chat, lineId: last!.line.id };
    } catch (err) {
      if (err instanceof DomainError) throw new SendFailed(err, idsOf(err, req, directChat));
      throw err;
    }
  }

  return {
    /** Sends, or answers what the first request under the same idempotency key answered. Throws SendFailed with the ids once the recipient was looked up. */
    async send(tenant: Tenant, req: SendInput): Promise<Sent> {
      validate(req);
      const handle = normalizeHandle(req.phone);
      if (!handle) throw new DomainError(1003, `phone "${req.phone}" is neither an E.164 number (e.g. +14155550100) nor an email handle`);
      const { idempotencyKey, ...request } = req;
      return idem.run(
        {
          tenantId: tenant.id,
          route: 'send',
          key: idempotencyKey,
          // The content: recipient, body, attachments (absent on a send without them) and voice note.
          identity: { recipient: handle.value, body: req.body ?? null, attachments: req.attachments, voice_note_id: req.voiceNoteId ?? null },
          identityWords: 'a different recipient, body, attachments or voice note',
          request: { ...request, phone: handle.value },
        },
        (claim) => perform(tenant, req, handle.value, claim),
      );
    },
  };
}
