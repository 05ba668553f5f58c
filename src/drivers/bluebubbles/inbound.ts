/**
 * BlueBubbles webhooks → the line's events.
 *
 * BlueBubbles POSTs `{ type, data }` (WebhookService). For messages, `data`
 * is the message serialized "for notification" with a 4000-byte cap
 * (MessageSerializer with isForNotification + enforceMaxSize): no
 * `isAudioMessage`, attachments without `hideAttachment`, and group
 * participants dropped when the payload is large, attributedBody null. Such a
 * trimmed payload is completed with GET /api/v1/message/:guid?with=FULL_MESSAGE_WITH.
 * Not `chats.participants`: MessageRouter.find then puts the members on the chat
 * entities, MessageSerializer.convert serializes chats with includeParticipants
 * false, and its loadChatParticipants skips chats that already hold members, so
 * the answer has none. With plain `chats`, loadChatParticipants (on by default)
 * fills a group chat's members in (MessageSerializer.serializeList). Should a
 * group still come without members, GET /api/v1/chat/:guid?with=participants
 * (ChatRouter.find) names them.
 *
 * - `new-message`, not from me → full message → events.inbound with the parts in
 *   display order (orderParts: from the attributedBody's runs; `text` itself has no
 *   U+FFFC left, BlueBubbles strips them); each visible attachment is a media part
 *   that downloads it with ?original=true (bytes untouched, so an Apple voice memo
 *   arrives as the CAF it is) when the domain opens it: streamed, and not at all for
 *   a message already recorded.
 * - `new-message` from someone in a one-to-one chat: the chat's guid (`SMS;-;…`, `any;-;…`) is
 *   kept as the person's chat, so replies go into it (direct-chats.ts).
 * - `new-message` from me carrying our `tempGuid` → events.sendMatched: a send
 *   reported under its tempGuid is known by BlueBubbles' real guid from then on.
 * - `updated-message` for a message someone sent us, with dateEdited → events.edited; not when
 *   it is an unsend (Ventura+: dateEdited set, the unsent part gone from the text; a whole
 *   message unsent has text null): the text recorded stays (docs/decisions.md).
 * - `updated-message` for one of our messages → events.receipt for
 *   dateDelivered / dateRead.
 * - `message-send-error`, or any message of ours with a non-zero `error` → events.sendFailed:
 *   Messages failed a message BlueBubbles had already answered for (MessagePoller emits it when a
 *   message it saw unsent gets an error; its send's promise was resolved at first sight).
 * - `new-message` that is a tapback (tapbacks.ts), from anyone or from the
 *   line's own Mac → events.reaction; never an inbound message.
 * Repeats are handled once per process (ledger.once).
 */
import type { DriverContext, InboundFileBody, InboundMessage } from '../types.js';
import { DriverFailure } from '../types.js';
import { type BBAttachment, type BBChat, type BBMessage, type BBWebhookEvent } from './api-types.js';
import { BlueBubblesClient } from './client.js';
import { parseConfig } from './config.js';
import { toDriverFailure } from './errors.js';
import { ledger } from './ledger.js';
import { isGroupChat, normalizeHandle, sanitizeText, storedFailed } from './mapping.js';
import { directGuidOf } from './direct-chats.js';
import { tapbackOf } from './tapbacks.js';

/** The attributedBody run attribute naming the attachment that sits there. */
const FILE_TRANSFER_GUID = '__kIMFileTransferGUIDAttributeName';

/**
 * What the handler needs: the line's config (to call its server back) and where to report; with
 * the state port it keeps the chat a person wrote from (direct-chats.ts).
 */
export type BlueBubblesWebhookDeps = Pick<DriverContext, 'config' | 'events'> & Partial<Pick<DriverContext, 'state' | 'now'>> & {
  /** Replaces global fetch (tests). */
  fetch?: typeof fetch;
};

export type WebhookOutcome =
  | { handled: 'inbound'; guid: string; parts: number }
  | { handled: 'receipts'; guid: string; kinds: ('delivered' | 'read')[] }
  | { handled: 'own_message'; guid: string; matchedSend: boolean }
  /** `failed`: a message of ours was still `sent` and is failed now; `code`: Messages' error number. */
  | { handled: 'send_error'; guid: string; failed: boolean; code?: number }
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
  const attachments = m.attachments ?? [];
  if (attachments.some((a) => !('hideAttachment' in a))) return true;
  // Where text and media sit comes from the attributedBody, which a webhook never carries.
  return attachments.some((a) => !a.hideAttachment) && !Array.isArray(m.attributedBody);
}

/** What a message is fetched with: its chats (a group's members come with them), attachments, attributedBody. */
export const FULL_MESSAGE_WITH = 'chats,attachment,attributedBody';


type Part = { type: 'text'; value: string } | { type: 'media'; index: number };

const squash = (t: string) => t.replace(/[\s\uFFFC]+/g, '');

/** Positions from the attributedBody's runs, or undefined when it gives none that fit the message. */
function partsFromAttributedBody(m: BBMessage, attachments: BBAttachment[]): Part[] | undefined {
  const bodies = Array.isArray(m.attributedBody) ? m.attributedBody : [];
  const body = bodies.find((b) => isObject(b) && typeof b.string === 'string' && Array.isArray(b.runs));
  if (!body) return undefined;
  const str = body.string as string;
  const runs = (body.runs as unknown[])
    .filter((r): r is { range: [number, number]; attributes?: Record<string, unknown> } => isObject(r) && Array.isArray(r.range) && r.range.length === 2 && r.range.every((n) => Number.isInteger(n) && n >= 0))
    .sort((a, b) => a.range[0] - b.range[0]);
  const byGuid = new Map(attachments.map((a, i) => [a.guid!, i]));
  const out: Part[] = [];
  const used = new Set<number>();
  let text = '';
  const flush = () => {
    const value = sanitizeText(text);
    if (value !== '') out.push({ type: 'text', value });
    text = '';
  };
  for (const run of runs) {
    const guid = run.attributes?.[FILE_TRANSFER_GUID];
    if (typeof guid === 'string') {
      const index = byGuid.get(guid);
      if (index !== undefined && !used.has(index)) {
        flush();
        out.push({ type: 'media', index });
        used.add(index);
      }
      continue;
    }
    text += str.slice(run.range[0], run.range[0] + run.range[1]);
  }
  flush();
  if (used.size === 0) return undefined;
  // The runs must say what the message's text says; otherwise they are not trusted.
  const said = out.flatMap((p) => (p.type === 'text' ? [p.value] : [])).join('');
  if (squash(said) !== squash(m.text ?? '')) return undefined;
  attachments.forEach((_, i) => {
    if (!used.has(i)) out.push({ type: 'media', index: i });
  });
  return out;
}

/**
 * Text and attachments in display order. BlueBubbles strips the U+FFFC placeholders from `text`
 * (sanitizeStr), so where each attachment sits comes from the attributedBody: its runs carry
 * `__kIMFileTransferGUIDAttributeName` for an attachment (read the same way by BlueBubbles'
 * messageInterface.ts to find a message part's attachment), the text between them is the text.
 * Without a usable attributedBody (an older Mac, a body that does not parse) the order is fixed:
 * the text first, then the attachments in the order BlueBubbles lists them.
 */
export function orderParts(m: BBMessage, attachments: BBAttachment[]): Part[] {
  const fromRuns = partsFromAttributedBody(m, attachments);
  if (fromRuns) return fromRuns;
  const out: Part[] = [];
  const text = sanitizeText(m.text);
  if (text !== '') out.push({ type: 'text', value: text });
  attachments.forEach((_, index) => out.push({ type: 'media', index }));
  return out;
}

function clientFor(deps: BlueBubblesWebhookDeps): BlueBubblesClient {
  const parsed = parseConfig(deps.config);
  if (!parsed.ok) throw new DriverFailure('line_down', `the line's BlueBubbles driver_config is invalid: ${parsed.problems.join('; ')}`);
  return new BlueBubblesClient(parsed.config, deps.fetch);
}

async function fullMessage(client: BlueBubblesClient, guid: string): Promise<BBMessage> {
  try {
    const env = await client.request<BBMessage>('GET', `/api/v1/message/${encodeURIComponent(guid)}`, { query: { with: FULL_MESSAGE_WITH } });
    if (!isObject(env.data)) throw new DriverFailure('not_found', `BlueBubbles returned no message for ${guid}`);
    return env.data as BBMessage;
  } catch (err) {
    throw toDriverFailure(err, 'lookup');
  }
}

/** A group's members when the message came without them: GET /api/v1/chat/:guid?with=participants (ChatRouter.find). */
async function chatParticipants(client: BlueBubblesClient, chatGuid: string): Promise<NonNullable<BBChat['participants']>> {
  try {
    const env = await client.request<BBChat>('GET', `/api/v1/chat/${encodeURIComponent(chatGuid)}`, { query: { with: 'participants' } });
    return Array.isArray(env.data?.participants) ? env.data.participants : [];
  } catch (err) {
    throw toDriverFailure(err, 'lookup');
  }
}

/**
 * Starts the attachment's download: its failures, before the body (a file not on the Mac yet, a
 * missing one) or in it (cut off, no bytes for the line's timeout, past the cap), in the driver's
 * terms. Its headers get twice the line's timeout, as an upload's answer does.
 */
async function openAttachment(client: BlueBubblesClient, a: BBAttachment): Promise<InboundFileBody> {
  const failure = (err: unknown) => toDriverFailure(err, 'download');
  try {
    // original=true: the file as Messages stored it (no HEIC→JPEG or CAF→MP3 conversion).
    // force=false: its default (true) makes a missing attachment a 500 with the Private API on (the
    // router "force-downloads" a row it does not have: a TypeError), read as "not on the Mac yet"
    // and retried for an hour; it changes nothing for an attachment that exists (attachmentRouter.ts).
    const file = await client.download(`/api/v1/attachment/${encodeURIComponent(a.guid!)}/download`, { original: 'true', force: 'false' }, client.timeoutMs * 2, failure);
    return { body: file.body, mimeType: file.contentType, filename: file.filename };
  } catch (err) {
    throw failure(err);
  }
}

/**
 * Builds the InboundMessage; undefined with a reason when there is nothing to report. Media is not
 * downloaded here: each media part downloads its attachment when the domain opens it.
 */
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
  for (const p of orderParts(m, attachments)) {
    if (p.type === 'text') {
      parts.push(p);
      continue;
    }
    const a = attachments[p.index]!;
    // Without a name or type of its own, the download's headers give them (InboundFileBody).
    parts.push({ type: 'media', filename: a.transferName || undefined, mimeType: a.mimeType || undefined, open: () => openAttachment(client, a) });
  }
  if (parts.length === 0) return { skip: 'no text and no attachments' };

  const chat = m.chats?.[0];
  const msg: InboundMessage = { guid: m.guid!, from, parts, sentAt: positive(m.dateCreated) ? m.dateCreated : nowMs };
  if (chat && isGroupChat(chat) && typeof chat.guid === 'string') {
    const members = chat.participants && chat.participants.length > 0 ? chat.participants : await chatParticipants(client, chat.guid);
    const handles = [...new Set([from, ...members.map((h) => h.address).filter((a): a is string => typeof a === 'string' && a.trim() !== '').map(normalizeHandle)])];
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
  if (event.type !== 'new-message' && event.type !== 'updated-message' && event.type !== 'message-send-error') return { handled: 'ignored', reason: `event ${event.type} is not used` };
  if (!isObject(event.data)) return { handled: 'ignored', reason: 'no message in the event' };
  const data = event.data as BBMessage;
  const guid = data.guid;
  if (typeof guid !== 'string' || guid === '') return { handled: 'ignored', reason: 'message has no guid' };

  // Messages failed one of ours after BlueBubbles had answered its send (or catch-up finds it stored
  // with an error): the message is failed, not `sent`. Under its tempGuid if only that was known.
  if (event.type === 'message-send-error' || (data.isFromMe === true && storedFailed(data))) {
    if (data.isFromMe !== true) return { handled: 'ignored', reason: 'send error for a message we did not send' };
    const tempGuid = typeof data.tempGuid === 'string' && data.tempGuid !== '' ? data.tempGuid : undefined;
    const r = await ledger.once(lineId, `send-error:${guid}`, async () => (await deps.events.sendFailed(lineId, guid)) || (tempGuid !== undefined && (await deps.events.sendFailed(lineId, tempGuid))));
    return r.ran ? { handled: 'send_error', guid, failed: r.result, code: storedFailed(data) ? data.error : undefined } : { handled: 'duplicate', guid };
  }

  if (event.type === 'updated-message') {
    if (data.isFromMe !== true) {
      // Someone edited (or unsent) a message they sent us.
      if (!positive(data.dateEdited) && !positive(data.dateRetracted)) return { handled: 'ignored', reason: 'update of a message we did not send' };
      const text = typeof data.text === 'string' ? sanitizeText(data.text) : '';
      // An unsend, not an edit (an edit never leaves the text empty): the recorded text is kept.
      if (text === '' || positive(data.dateRetracted)) return { handled: 'ignored', reason: 'unsent by its sender: the recorded text is kept' };
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
    // The chat they wrote from (SMS;-;…, any;-;…) is where replies go (msg.from is normalized, as
    // direct-chats.ts keys it); not failing the message if it cannot be kept.
    const chatGuid = msg.group ? undefined : directGuidOf(full.chats?.[0]);
    if (chatGuid && deps.state) await deps.state.setDirectChatKey(lineId, msg.from, chatGuid, deps.now?.() ?? Date.now()).catch(() => undefined);
    await deps.events.inbound(lineId, msg);
    return { handled: 'inbound', guid, parts: msg.parts.length } as const;
  });
  return run.ran ? run.result : { handled: 'duplicate', guid };
}
