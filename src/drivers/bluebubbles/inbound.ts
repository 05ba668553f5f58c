/**
 * BlueBubbles webhooks → the line's events.
 *
 * BlueBubbles POSTs `{ type, data }` (WebhookService). For messages, `data`
 * is the message serialized "for notification" with a 4000-byte cap
 * (MessageSerializer with isForNotification + enforceMaxSize): no
 * `isAudioMessage`, attachments without `hideAttachment`, and group
 * participants dropped when the payload is large. Such a trimmed payload is
 * completed with GET /api/v1/message/:guid?with=chats,chats.participants,attachment.
 *
 * - `new-message`, not from me → full message → every visible attachment
 *   downloaded with ?original=true (bytes untouched, so an Apple voice memo
 *   arrives as the CAF it is) → events.inbound with the parts in the order
 *   the text's U+FFFC placeholders give.
 * - `new-message` from me carrying our `tempGuid` → events.sendMatched: a send
 *   reported under its tempGuid is known by BlueBubbles' real guid from then on.
 * - `updated-message` for a message someone sent us, with dateEdited → events.edited
 * - `updated-message` for one of our messages → events.receipt for
 *   dateDelivered / dateRead.
 * - `new-message` that is a tapback (tapbacks.ts), from anyone or from the
 *   line's own Mac → events.reaction; never an inbound message.
 * Repeats are handled once per process (ledger.once).
 */
import type { DriverContext, InboundMessage } from '../types.js';
import { DriverFailure } from '../types.js';
import { ATTACHMENT_PLACEHOLDER, type BBAttachment, type BBMessage, type BBWebhookEvent } from './api-types.js';
import { BlueBubblesClient } from './client.js';
import { parseConfig } from './config.js';
import { toDriverFailure } from './errors.js';
import { ledger } from './ledger.js';
import { isGroupChat, normalizeHandle } from './mapping.js';
import { tapbackOf } from './tapbacks.js';

/** What the handler needs: the line's config (to call its server back) and where to report. */
export type BlueBubblesWebhookDeps = Pick<DriverContext, 'config' | 'events'> & {
  /** Replaces global fetch (tests). */
  fetch?: typeof fetch;
};

export type WebhookOutcome =
  | { handled: 'inbound'; guid: string; parts: number }
  | { handled: 'receipts'; guid: string; kinds: ('delivered' | 'read')[] }
  | { handled: 'own_message'; guid: string; matchedSend: boolean }
  | { handled: 'duplicate'; guid: string }
  | { handled: 'edit'; guid: string }
  | { handled: 'reaction'; guid: string; on: string }
  | { handled: 'ignored'; reason: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const positive = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0;

/** True when a webhook message lacks what an inbound message needs (it was serialized "for notification"). */
export function isTrimmed(m: BBMessage): boolean {
  if (!('isAudioMessage' in m)) return true;
  if (!Array.isArray(m.chats) || m.chats.length === 0) return true;
  if (m.chats.some((c) => isGroupChat(c) && !(c.participants && c.participants.length > 0))) return true;
  return (m.attachments ?? []).some((a) => !('hideAttachment' in a));
}

/** Text and attachments in display order: each U+FFFC in the text stands where an attachment sits. */
export function orderParts(text: string, attachments: number): ({ type: 'text'; value: string } | { type: 'media'; index: number })[] {
  const out: ({ type: 'text'; value: string } | { type: 'media'; index: number })[] = [];
  const segments = text.split(ATTACHMENT_PLACEHOLDER);
  let next = 0;
  segments.forEach((segment, i) => {
    if (segment.trim() !== '') out.push({ type: 'text', value: segment.trim() });
    if (i < segments.length - 1 && next < attachments) out.push({ type: 'media', index: next++ });
  });
  while (next < attachments) out.push({ type: 'media', index: next++ });
  return out;
}

function clientFor(deps: BlueBubblesWebhookDeps): BlueBubblesClient {
  const parsed = parseConfig(deps.config);
  if (!parsed.ok) throw new DriverFailure('line_down', `the line's BlueBubbles driver_config is invalid: ${parsed.problems.join('; ')}`);
  return new BlueBubblesClient(parsed.config, deps.fetch);
}

async function fullMessage(client: BlueBubblesClient, guid: string): Promise<BBMessage> {
  try {
    const env = await client.request<BBMessage>('GET', `/api/v1/message/${encodeURIComponent(guid)}`, { query: { with: 'chats,chats.participants,attachment' } });
    if (!isObject(env.data)) throw new DriverFailure('not_found', `BlueBubbles returned no message for ${guid}`);
    return env.data as BBMessage;
  } catch (err) {
    throw toDriverFailure(err, 'lookup');
  }
}

async function downloadAttachment(client: BlueBubblesClient, a: BBAttachment) {
  try {
    // original=true: the file as Messages stored it (no HEIC→JPEG or CAF→MP3 conversion).
    return await client.download(`/api/v1/attachment/${encodeURIComponent(a.guid!)}/download`, { original: 'true' }, client.timeoutMs * 2);
  } catch (err) {
    throw toDriverFailure(err, 'download');
  }
}

/** Builds the InboundMessage (downloading media); undefined with a reason when there is nothing to report. */
export async function toInboundMessage(client: BlueBubblesClient, m: BBMessage, nowMs: number): Promise<InboundMessage | { skip: string }> {
  if (m.isFromMe) return { skip: 'from me' };
  if (typeof m.itemType === 'number' && m.itemType !== 0) return { skip: `not a message (itemType ${m.itemType})` };
  if (m.associatedMessageGuid && m.associatedMessageType != null && m.associatedMessageType !== 0 && m.associatedMessageType !== '0') {
    return { skip: 'a reaction to another message' };
  }
  const address = m.handle?.address;
  if (typeof address !== 'string' || address.trim() === '') return { skip: 'no sender address' };
  const from = normalizeHandle(address);

  const attachments = (m.attachments ?? []).filter((a) => typeof a.guid === 'string' && a.guid !== '' && !a.hideAttachment);
  const parts: InboundMessage['parts'] = [];
  if (typeof m.subject === 'string' && m.subject.trim() !== '') parts.push({ type: 'text', value: m.subject.trim() });
  for (const p of orderParts(m.text ?? '', attachments.length)) {
    if (p.type === 'text') {
      parts.push(p);
      continue;
    }
    const a = attachments[p.index]!;
    const file = await downloadAttachment(client, a);
    parts.push({
      type: 'media',
      bytes: file.bytes,
      filename: a.transferName || file.filename || undefined,
      mimeType: a.mimeType || file.contentType || undefined,
    });
  }
  if (parts.length === 0) return { skip: 'no text and no attachments' };

  const chat = m.chats?.[0];
  const msg: InboundMessage = { guid: m.guid!, from, parts, sentAt: positive(m.dateCreated) ? m.dateCreated : nowMs };
  if (chat && isGroupChat(chat) && typeof chat.guid === 'string') {
    const handles = [...new Set([from, ...(chat.participants ?? []).map((h) => h.address).filter((a): a is string => typeof a === 'string' && a.trim() !== '').map(normalizeHandle)])];
    msg.group = { chatKey: chat.guid, handles, ...(chat.displayName ? { displayName: chat.displayName } : {}) };
  }
  return msg;
}

/**
 * Handles one webhook POST from the line's BlueBubbles Server. Resolves with
 * what was done; rejects (with a DriverFailure when BlueBubbles is to blame)
 * when the event could not be processed. Never includes the password in errors.
 */
export async function handleBlueBubblesWebhook(deps: BlueBubblesWebhookDeps, lineId: string, body: unknown): Promise<WebhookOutcome> {
  if (!isObject(body)) return { handled: 'ignored', reason: 'body is not a JSON object' };
  const event = body as BBWebhookEvent;
  if (typeof event.type !== 'string') return { handled: 'ignored', reason: 'no event type' };
  if (event.type !== 'new-message' && event.type !== 'updated-message') return { handled: 'ignored', reason: `event ${event.type} is not used` };
  if (!isObject(event.data)) return { handled: 'ignored', reason: 'no message in the event' };
  const data = event.data as BBMessage;
  const guid = data.guid;
  if (typeof guid !== 'string' || guid === '') return { handled: 'ignored', reason: 'message has no guid' };

  if (event.type === 'updated-message') {
    if (data.isFromMe !== true) {
      // Someone edited a message they sent us.
      if (!positive(data.dateEdited) || typeof data.text !== 'string') return { handled: 'ignored', reason: 'update of a message we did not send' };
      const text = data.text.replace(/\uFFFC/g, '').trim();
      const r = await ledger.once(lineId, `edit:${guid}:${data.dateEdited}`, () => deps.events.edited(lineId, guid, text, data.dateEdited as number));
      return r.ran ? { handled: 'edit', guid } : { handled: 'duplicate', guid };
    }
    const kinds: ('delivered' | 'read')[] = [];
    const fire = async (kind: 'delivered' | 'read', at: number) => {
      const r = await ledger.once(lineId, `receipt:${kind}:${guid}`, () => deps.events.receipt(lineId, guid, kind, at));
      if (r.ran) kinds.push(kind);
    };
    if (positive(data.dateDelivered)) await fire('delivered', data.dateDelivered);
    if (positive(data.dateRead)) await fire('read', data.dateRead);
    return kinds.length > 0 ? { handled: 'receipts', guid, kinds } : { handled: 'ignored', reason: 'no new delivery or read date' };
  }

  if (tapbackOf(data)) {
    const run = await ledger.once(lineId, `reaction:${guid}`, async () => {
      // A trimmed payload may lack the sender: the full message has it.
      const full = data.isFromMe !== true && typeof data.handle?.address !== 'string' ? { ...(await fullMessage(clientFor(deps), guid)), guid } : data;
      const tapback = tapbackOf(full);
      const address = full.handle?.address;
      if (!tapback) return { handled: 'ignored', reason: 'not a tapback' } as const;
      if (full.isFromMe !== true && (typeof address !== 'string' || address.trim() === '')) return { handled: 'ignored', reason: 'tapback without a sender' } as const;
      const from = full.isFromMe === true ? null : normalizeHandle(address as string);
      await deps.events.reaction(lineId, { ...tapback, from, atMs: positive(full.dateCreated) ? full.dateCreated : Date.now() });
      return { handled: 'reaction', guid, on: tapback.targetGuid } as const;
    });
    return run.ran ? run.result : { handled: 'duplicate', guid };
  }

  if (data.isFromMe === true) {
    const matchedSend = typeof data.tempGuid === 'string' && data.tempGuid !== '' ? await deps.events.sendMatched(lineId, data.tempGuid, guid) : false;
    return { handled: 'own_message', guid, matchedSend };
  }

  const client = clientFor(deps);
  const run = await ledger.once(lineId, `inbound:${guid}`, async () => {
    const full = isTrimmed(data) ? await fullMessage(client, guid) : data;
    const msg = await toInboundMessage(client, { ...full, guid }, Date.now());
    if ('skip' in msg) return { handled: 'ignored', reason: msg.skip } as const;
    await deps.events.inbound(lineId, msg);
    return { handled: 'inbound', guid, parts: msg.parts.length } as const;
  });
  return run.ran ? run.result : { handled: 'duplicate', guid };
}
