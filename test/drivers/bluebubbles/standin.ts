/**
 * A stand-in BlueBubbles Server on loopback, written from BlueBubbles' own
 * routes (packages/server/src/server/api/http/api/v1/httpRoutes.ts), validators
 * (messageValidator.ts, chatValidator.ts, attachmentValidator.ts,
 * webhookValidator.ts), middleware (AuthMiddleware: password in the query
 * string as guid/password/token; PrivateApiMiddleware; ErrorMiddleware) and
 * response classes (`{ status, message, data }`, errors with
 * `error: { type, message }`). Webhooks go out as `{ type, data }` with the
 * message serialized "for notification" and capped at 4000 bytes, as
 * BlueBubbles' handleNewMessage/handleUpdatedMessage do.
 *
 * The message query (POST /api/v1/message/query) answers as MessageRouter.query over
 * iMessageRepo.getMessages does: body validated by MessageValidator.queryBodyRules, `after` /
 * `before` in Unix ms and inclusive, ordered by dateCreated (`sort`, default DESC), `offset` /
 * `limit` (default 100, at most 1000), `with` (chat, chat.participants, attachment) lowercased,
 * messages serialized in full, and `metadata: { offset, limit, total, count }`.
 *
 * Sends follow the helper: over the Private API only into a chat it has (else 500 "Chat does not
 * exist in IMChatRegistry!", BlueBubblesHelper.m getIMChatFromGuid); by AppleScript into the
 * person's chat, made when there is none (scripts.ts sendMessageFallback); `/chat/new` gets or
 * makes the chat (create-chat: chatForIMHandle) and sends its message into it. A chat the Mac
 * makes with a person is named with `directChatService` (`any` as on newer macOS).
 *
 * Serialization follows MessageSerializer (api/serializers/MessageSerializer.ts):
 * - `text` is Message.universalText(true): helpers/utils.ts sanitizeStr removes every U+FFFC and
 *   trims, so the placeholders Messages stores where attachments sit never reach a client;
 * - `attributedBody` is null unless asked for (`attributedBody` / `attributed-body` in `with`);
 *   then it is the NSAttributedString list node-typedstream decodes: `{ string, runs }`, each run
 *   `{ range: [location, length], attributes }`, an attachment's run carrying
 *   `__kIMFileTransferGUIDAttributeName` (as messageInterface.ts reads it);
 * - `chats` is always there unless the caller turned includeChats off (the webhook of an update),
 *   empty when the chats were not joined; convert serializes chats with includeParticipants false,
 *   and only serializeList's loadChatParticipants adds members, to group chats (style 43) that
 *   hold none yet. So GET /message/:guid?with=chats gives a group's members, while
 *   ?with=chats,chats.participants does not (MessageRouter.find puts them on the chat entities
 *   first, and the loader skips chats that already hold members).
 */
import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  json?: any;
  fields?: Record<string, string>;
  files?: Record<string, UploadedFile>;
}

/** A multipart file as it arrived: hashed while it streamed in, its bytes kept up to `keepFileBytesUpTo`. */
export interface UploadedFile {
  name: string;
  type: string;
  size: number;
  sha256: string;
  /** Every byte, or none (empty) when the file was larger than keepFileBytesUpTo. */
  bytes: Buffer;
}

/**
 * A multipart/form-data body read as it arrives (BlueBubbles' koa-body hands it to formidable,
 * which streams each file to disk): fields as text, files hashed chunk by chunk and kept only up to
 * `keep` bytes, so a large upload costs the stand-in no more memory than the driver may use.
 */
async function readMultipart(req: AsyncIterable<Buffer>, boundary: string, keep: number) {
  const fields: Record<string, string> = {};
  const files: Record<string, UploadedFile> = {};
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  // The first boundary has no CRLF before it: one is put there, so every delimiter looks the same.
  let buf: Buffer = Buffer.from('\r\n');
  let state = 'preamble' as 'preamble' | 'after' | 'headers' | 'body' | 'done';
  let part: { name: string; filename?: string; type: string; hash: ReturnType<typeof createHash>; size: number; chunks: Buffer[] } | undefined;
  const take = (bytes: Buffer) => {
    if (!part || bytes.length === 0) return;
    part.hash.update(bytes);
    part.size += bytes.length;
    if (part.filename === undefined || part.size <= keep) part.chunks.push(Buffer.from(bytes));
  };
  const finish = () => {
    if (!part) return;
    const bytes = part.filename === undefined || part.size <= keep ? Buffer.concat(part.chunks) : Buffer.alloc(0);
    if (part.filename === undefined) fields[part.name] = bytes.toString('utf8');
    else files[part.name] = { name: part.filename, type: part.type, size: part.size, sha256: part.hash.digest('hex'), bytes };
    part = undefined;
  };
  const step = (): boolean => {
    if (state === 'preamble' || state === 'body') {
      const at = buf.indexOf(delimiter);
      if (at < 0) {
        // Keep what could be the start of a delimiter split across chunks.
        const safe = Math.max(0, buf.length - delimiter.length + 1);
        if (state === 'body') take(buf.subarray(0, safe));
        buf = buf.subarray(safe);
        return false;
      }
      if (state === 'body') take(buf.subarray(0, at));
      finish();
      buf = buf.subarray(at + delimiter.length);
      state = 'after';
      return true;
    }
    if (state === 'after') {
      if (buf.length < 2) return false;
      const next = buf.subarray(0, 2).toString('latin1');
      if (next === '--') state = 'done';
      else if (next === '\r\n') state = 'headers';
      else throw new Error('malformed multipart body: a boundary not followed by CRLF or --');
      buf = buf.subarray(2);
      return state !== 'done';
    }
    if (state === 'headers') {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return false;
      const headers = Object.fromEntries(
        buf.subarray(0, end).toString('utf8').split('\r\n').map((l) => [l.slice(0, l.indexOf(':')).trim().toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      const disposition = headers['content-disposition'] ?? '';
      const name = /\bname="([^"]*)"/.exec(disposition)?.[1];
      if (name === undefined) throw new Error(`malformed multipart part: no name in ${JSON.stringify(disposition)}`);
      // formidable's _getFileName turns the %22 a client wrote for `"` back into it.
      const filename = /\bfilename="([^"]*)"/.exec(disposition)?.[1]?.replace(/%22/g, '"');
      part = { name, filename, type: headers['content-type'] ?? (filename === undefined ? '' : 'application/octet-stream'), hash: createHash('sha256'), size: 0, chunks: [] };
      buf = buf.subarray(end + 4);
      state = 'body';
      return true;
    }
    return false;
  };
  for await (const chunk of req) {
    if (state === 'done') continue;
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    while (step());
  }
  if (state !== 'done') throw new Error('malformed multipart body: it ended before its closing boundary');
  return { fields, files };
}

interface StoredAttachment {
  guid: string;
  bytes: Buffer;
  mimeType: string;
  transferName: string;
  uti: string;
  hideAttachment: boolean;
}

interface StoredChat {
  guid: string;
  style: 43 | 45;
  displayName: string;
  participants: string[];
}

interface StoredMessage {
  guid: string;
  /**
   * What Message.universalText gives before sanitizing: the text, U+FFFC where each attachment
   * sits. null once every part is unsent: Messages then stores the text column as NULL and the
   * attributedBody holds no string.
   */
  text: string | null;
  subject: string | null;
  from: string | null;
  isFromMe: boolean;
  chatGuid: string;
  attachments: string[];
  dateCreated: number;
  dateDelivered: number | null;
  dateRead: number | null;
  dateEdited: number | null;
  isAudioMessage: boolean;
  itemType: number;
  associatedMessageGuid: string | null;
  associatedMessageType: string | null;
  error: number;
}

/**
 * `storeThenHangMs`: the Mac does the work (a send is stored) but the answer is held that long,
 * as when the service dies between its request and BlueBubbles' answer.
 * `storeThenAnswerWhen`: the Mac does the work, and its answer waits until the promise settles
 * (a slow answer: the message's webhooks can come first).
 */
/** ServerError (responses/errors.ts): its default message, and the error the controller names. */
const serverErrorThrown = (error: string) => ({ status: 500, body: { status: 500, message: 'The server has encountered an error', error: { type: 'Server Error', message: error } } });
const PLACEHOLDER = '\uFFFC';
/** The helper's answer to a send into a chat guid Messages does not have (BlueBubblesHelper.m getIMChatFromGuid). */
const NO_CHAT_IN_REGISTRY = 'Chat does not exist in IMChatRegistry!';
/** helpers/utils.ts sanitizeStr. */
const sanitizeStr = (val: string | null) => (val ? val.split(PLACEHOLDER).join('').trim() : val);

/**
 * `redirect`: a 302 to that Location (a proxy in front of the Mac pointing elsewhere).
 * `cutAfter` / `stallAfter` (a file download): the answer's headers with the whole file's
 * Content-Length, that many of its bytes, then the connection cut, or nothing more until the
 * client gives up.
 * `drip` (a file download): the headers, then the file in `pieces` equal pieces, one every
 * `everyMs` (a slow link); with `stopAfter`, only that many pieces, then nothing more until the
 * client gives up.
 * `takeBodyUpTo` (an upload): that many bytes of the request body are read, then none more (a
 * stalled link): the request is never recorded nor answered.
 */
type Injected =
  | { status: number; body: unknown }
  | { hangMs: number }
  | { storeThenHangMs: number }
  | { storeThenAnswerWhen: Promise<unknown> }
  | { reset: true }
  | { html: number }
  | { redirect: string }
  | { cutAfter: number }
  | { stallAfter: number }
  | { drip: { pieces: number; everyMs: number; stopAfter?: number } }
  | { takeBodyUpTo: number };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const WEBHOOK_EVENTS = [
  '*', 'new-message', 'updated-message', 'message-send-error', 'group-name-change', 'group-icon-changed', 'group-icon-removed',
  'participant-removed', 'participant-added', 'participant-left', 'chat-read-status-changed', 'typing-indicator',
  'scheduled-message-error', 'server-update', 'new-server', 'new-findmy-location', 'hello-world', 'incoming-facetime',
  'ft-call-status-changed', 'imessage-alias-removed', 'theme-backup-created', 'theme-backup-updated', 'theme-backup-deleted',
  'settings-backup-created', 'settings-backup-updated', 'settings-backup-deleted',
];
const REACTIONS = ['love', 'like', 'dislike', 'laugh', 'emphasize', 'question', '-love', '-like', '-dislike', '-laugh', '-emphasize', '-question'];

const ok = (data: unknown, message = 'Success') => ({ status: 200, body: { status: 200, message, ...(data !== undefined && { data }) } });
const badRequest = (error: string) => ({
  status: 400,
  body: { status: 400, message: "You've made a bad request! Please check your request params & body", error: { type: 'Validation Error', message: error } },
});
const notFound = (error: string) => ({ status: 404, body: { status: 404, message: 'The requested resource was not found', error: { type: 'Database Error', message: error } } });
const imessageError = (message: string, error: string, data?: unknown) => ({
  status: 500,
  body: { status: 500, message, error: { type: 'iMessage Error', message: error }, ...(data !== undefined && { data }) },
});
/** ErrorMiddleware: any other exception thrown in a controller. */
const serverError = (error: string) => ({ status: 500, body: { status: 500, message: 'An unhandled error has occurred!', error: { type: 'Server Error', message: error } } });
const unauthorized = (error: string) => ({
  status: 401,
  body: { status: 401, message: 'You are not authorized to access this resource', error: { type: 'Authentication Error', message: error } },
});
/** checkPrivateApiStatus(): the Error it throws, or undefined when the Private API is usable. */
const privateApiProblem = (s: StandIn) =>
  !s.privateApi ? 'iMessage Private API is not enabled!' : !s.helperConnected ? 'iMessage Private API Helper is not connected!' : undefined;
const privateApiMiddleware = (s: StandIn) => {
  const problem = privateApiProblem(s);
  return problem ? imessageError('Please make sure you have completed the setup for the Private API, and your helper is connected!', problem) : undefined;
};

const newGuid = () => randomUUID().toUpperCase();

export class StandIn {
  password = 'bb-secret-pw&x=1';
  privateApi = true;
  helperConnected = true;
  serverVersion = '1.9.9';
  osVersion = '14.5.0';
  computerId = 'mac@blueline-mac';
  /** Recipients Messages cannot send to. */
  unreachable = new Set<string>();
  /**
   * The service this Mac names a one-to-one chat it makes with: `iMessage;-;+1…`, or `any;-;+1…`
   * as newer macOS does (an SMS chat is `SMS;-;+1…` either way).
   */
  directChatService = 'iMessage';
  /**
   * Recipients whose messages (a group's, if one is a member) Messages stores with an error (22: not delivered). MessagePoller
   * resolves a send's promise with a new message of ours whatever its error, so the routes answer
   * with it: text and multipart turn a non-zero `error` into a 500, the attachment and reaction
   * routes answer 200 with it (MessageRouter.sendAttachment, .react).
   */
  notDelivered = new Set<string>();
  /** The Mac's clock (message dates): a test that moves the service's clock can move this one with it. */
  now: () => number = Date.now;
  /** Answer sends without the real guid (only the tempGuid), to exercise tempGuid matching. */
  omitGuidInSendAnswers = false;
  /**
   * Attachments whose row is in chat.db but whose file is not on the Mac's disk yet (still coming
   * from iCloud): their download answers AttachmentRouter.download's 500 until `arrive(guid)`.
   */
  notOnDisk = new Set<string>();
  /**
   * Uploaded files larger than this are hashed (RecordedRequest's sha256 and size) but their bytes
   * not kept, nor given to the attachment or upload made from them: a large-upload test then
   * costs the stand-in no memory for the file.
   */
  keepFileBytesUpTo = Infinity;
  /** Answer GET /api/v1/message/:guid this much later (a slow Mac), in ms. */
  messageLookupDelayMs = 0;
  /** When a `drip` with `stopAfter` or a `takeBodyUpTo` last stopped moving bytes (epoch ms). */
  stalledAt?: number;
  requests: RecordedRequest[] = [];
  chats = new Map<string, StoredChat>();
  messages = new Map<string, StoredMessage>();
  attachments = new Map<string, StoredAttachment>();
  uploads = new Map<string, { name: string; bytes: Buffer }>();
  webhooks: { id: number; url: string; events: string[] }[] = [];
  /** Group chats the Mac's user left (POST /chat/:guid/leave). */
  left = new Set<string>();
  private nextWebhookId = 1;
  private sendCache = new Set<string>();
  private injected = new Map<string, Injected>();
  private server?: http.Server;
  private sockets = new Set<Socket>();
  port = 0;

  get url() {
    return `http://127.0.0.1:${this.port}`;
  }

  config(extra: Record<string, unknown> = {}) {
    return { url: this.url, password: this.password, ...extra };
  }

  /** The next request to `METHOD /path` gets this instead of the real answer. */
  inject(route: string, what: Injected) {
    this.injected.set(route, what);
  }

  requestsTo(method: string, path: string) {
    return this.requests.filter((r) => r.method === method && r.path === path);
  }

  lastTo(method: string, path: string): RecordedRequest {
    const all = this.requestsTo(method, path);
    if (all.length === 0) throw new Error(`no ${method} ${path} reached the stand-in; saw: ${this.requests.map((r) => `${r.method} ${r.path}`).join(', ')}`);
    return all[all.length - 1]!;
  }

  async start(port = 0): Promise<this> {
    const server = http.createServer((req, res) => {
      this.handle(req, res).catch((err) => {
        res.statusCode = 500;
        res.end(String(err));
      });
    });
    server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Stops and starts again on the same port (the Mac's server restarting). */
  async restart(): Promise<void> {
    const port = this.port;
    await this.stop();
    await this.start(port);
  }

  // ---- fixtures ------------------------------------------------------------

  /**
   * The Mac's one-to-one chat with `address` on `service` (an SMS chat is another chat than the
   * iMessage one); made, named as this Mac does, when there is none.
   */
  directChat(address: string, service = this.directChatService): StoredChat {
    const sms = service === 'SMS';
    const known = [...this.chats.values()].find((c) => c.style === 45 && c.participants[0] === address && c.guid.startsWith('SMS;') === sms);
    if (known) return known;
    const chat: StoredChat = { guid: `${service};-;${address}`, style: 45, displayName: '', participants: [address] };
    this.chats.set(chat.guid, chat);
    return chat;
  }

  groupChat(participants: string[], displayName = ''): StoredChat {
    const guid = `iMessage;+;chat${randomUUID().replace(/-/g, '').slice(0, 18)}`;
    const chat: StoredChat = { guid, style: 43, displayName, participants: [...participants] };
    this.chats.set(guid, chat);
    return chat;
  }

  /** The file of an attachment reaches the Mac's disk. */
  arrive(guid: string) {
    this.notOnDisk.delete(guid);
  }

  addAttachment(a: { bytes: Buffer; mimeType: string; transferName: string; uti?: string; hide?: boolean }): string {
    const guid = `at_${newGuid()}`;
    this.attachments.set(guid, { guid, bytes: a.bytes, mimeType: a.mimeType, transferName: a.transferName, uti: a.uti ?? 'public.data', hideAttachment: a.hide ?? false });
    return guid;
  }

  /**
   * The sender unsends part `partIndex` of a message (macOS Ventura and later): Messages sets
   * date_edited (not date_retracted: "Apple doesn't even use this field", MessagePoller.ts), notes
   * the part in message_summary_info's retracted parts and keeps the other parts; with none left
   * the text is NULL and part_count 0. BlueBubbles' MessagePoller then emits `updated-entry`,
   * posted as `updated-message` (handleUpdatedMessage), messageSummaryInfo null in it.
   */
  unsend(guid: string, partIndex: number, at = Date.now()) {
    const m = this.messages.get(guid)!;
    const parts = this.partsOf(m);
    const gone = parts[partIndex];
    if (!gone) throw new Error(`message ${guid} has no part ${partIndex}`);
    if (gone.attachment) m.attachments = m.attachments.filter((a) => a !== gone.attachment);
    const left = parts.filter((_, i) => i !== partIndex);
    m.text = left.length === 0 ? null : left.map((p) => p.text).join('');
    m.dateEdited = at;
  }

  /** The message's parts as its attributedBody numbers them: text runs, and each U+FFFC with its attachment. */
  private partsOf(m: StoredMessage): { text: string; attachment?: string }[] {
    const parts: { text: string; attachment?: string }[] = [];
    const text = m.text ?? '';
    let att = 0;
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      if (text[i] !== PLACEHOLDER) continue;
      if (i > start) parts.push({ text: text.slice(start, i) });
      parts.push({ text: PLACEHOLDER, attachment: m.attachments[att++] });
      start = i + 1;
    }
    if (text.length > start) parts.push({ text: text.slice(start) });
    for (; att < m.attachments.length; att++) parts.push({ text: PLACEHOLDER, attachment: m.attachments[att] });
    return parts;
  }

  /** A message that arrived on the Mac (not from me). */
  addIncoming(m: { from: string; text: string; chat?: StoredChat; attachments?: string[]; isAudioMessage?: boolean; subject?: string; dateCreated?: number }): StoredMessage {
    const chat = m.chat ?? this.directChat(m.from);
    const msg: StoredMessage = {
      guid: newGuid(), text: m.text, subject: m.subject ?? null, from: m.from, isFromMe: false, chatGuid: chat.guid, attachments: m.attachments ?? [],
      dateCreated: m.dateCreated ?? Date.now(), dateDelivered: null, dateRead: null, dateEdited: null, isAudioMessage: m.isAudioMessage ?? false, itemType: 0,
      associatedMessageGuid: null, associatedMessageType: null, error: 0,
    };
    this.messages.set(msg.guid, msg);
    return msg;
  }

  private addSent(chatGuid: string, text: string, attachments: string[] = [], isAudioMessage = false): StoredMessage {
    if (!this.chats.has(chatGuid)) throw new Error(`the stand-in stores a sent message only in a chat it has, not ${chatGuid}`);
    const msg: StoredMessage = {
      guid: newGuid(), text, subject: null, from: null, isFromMe: true, chatGuid, attachments, dateCreated: this.now(),
      dateDelivered: null, dateRead: null, dateEdited: null, isAudioMessage, itemType: 0, associatedMessageGuid: null, associatedMessageType: null,
      error: this.membersOf(chatGuid).some((h) => this.notDelivered.has(h)) ? 22 : 0,
    };
    this.messages.set(msg.guid, msg);
    return msg;
  }

  // ---- serialization (MessageSerializer / ChatSerializer / AttachmentSerializer) -----

  private serializeAttachment(guid: string, forNotification: boolean) {
    const a = this.attachments.get(guid)!;
    const base = { originalROWID: 1, guid: a.guid, uti: a.uti, mimeType: a.mimeType, transferName: a.transferName, totalBytes: a.bytes.length };
    const meta = { height: 0, width: 0, metadata: null };
    return forNotification ? { ...base, ...meta } : { ...base, transferState: 5, isOutgoing: false, hideAttachment: a.hideAttachment, isSticker: false, originalGuid: a.guid, hasLivePhoto: false, ...meta };
  }

  private serializeChat(guid: string, withParticipants: boolean, forNotification: boolean) {
    const c = this.chats.get(guid)!;
    return {
      originalROWID: 1, guid: c.guid, style: c.style, chatIdentifier: c.guid.split(';').pop(), isArchived: false, displayName: c.displayName,
      ...(withParticipants && { participants: c.participants.map((address) => ({ originalROWID: 1, address, service: 'iMessage', country: 'us', uncanonicalizedId: null })) }),
      ...(!forNotification && { isFiltered: false, groupId: '' }),
    };
  }

  /** The attributedBody Messages keeps: text runs, and one run per U+FFFC naming the attachment there (in order). */
  private attributedBody(m: StoredMessage) {
    if (m.text === null) return null;
    const runs: { range: [number, number]; attributes: Record<string, unknown> }[] = [];
    let part = 0;
    let att = 0;
    let start = 0;
    const pushText = (end: number) => {
      if (end > start) runs.push({ range: [start, end - start], attributes: { __kIMMessagePartAttributeName: part++ } });
    };
    for (let i = 0; i < m.text.length; i++) {
      if (m.text[i] !== PLACEHOLDER) continue;
      pushText(i);
      const a = m.attachments[att++];
      runs.push({ range: [i, 1], attributes: { __kIMMessagePartAttributeName: part++, ...(a && { __kIMFileTransferGUIDAttributeName: a }) } });
      start = i + 1;
    }
    pushText(m.text.length);
    return [{ string: m.text, runs }];
  }

  serializeMessage(
    guid: string,
    opts: { forNotification: boolean; withChats: boolean; withParticipants: boolean; withAttachments: boolean; withAttributedBody?: boolean; includeChats?: boolean },
  ) {
    const m = this.messages.get(guid)!;
    const out: Record<string, unknown> = {
      originalROWID: 1, guid: m.guid, text: sanitizeStr(m.text), attributedBody: opts.withAttributedBody ? this.attributedBody(m) : null,
      handle: m.from ? { originalROWID: 1, address: m.from, service: 'iMessage', country: 'us', uncanonicalizedId: null } : null,
      handleId: m.from ? 1 : 0, otherHandle: 0,
      attachments: opts.withAttachments ? m.attachments.map((a) => this.serializeAttachment(a, opts.forNotification)) : [],
      subject: m.subject, error: m.error, dateCreated: m.dateCreated, dateRead: m.dateRead, dateDelivered: m.dateDelivered, isFromMe: m.isFromMe,
      hasDdResults: false, isArchived: false, itemType: m.itemType, groupTitle: null, groupActionType: 0, balloonBundleId: null,
      associatedMessageGuid: m.associatedMessageGuid, associatedMessageType: m.associatedMessageType, expressiveSendStyleId: null,
      threadOriginatorGuid: null, hasPayloadData: false,
    };
    if (!opts.forNotification) {
      Object.assign(out, {
        country: 'us', isDelayed: false, isAutoReply: false, isSystemMessage: false, isServiceMessage: false, isForward: false,
        threadOriginatorPart: null, isCorrupt: false, datePlayed: null, cacheRoomnames: null, isSpam: false, isExpired: false,
        timeExpressiveSendStyleId: null, isAudioMessage: m.isAudioMessage, replyToGuid: null, wasDeliveredQuietly: false, didNotifyRecipient: false,
      });
    }
    if (opts.includeChats !== false) {
      // loadChatParticipants: members only for a group chat (style 43).
      out.chats = opts.withChats ? [this.serializeChat(m.chatGuid, opts.withParticipants && this.chats.get(m.chatGuid)?.style === 43, opts.forNotification)] : [];
    }
    Object.assign(out, { messageSummaryInfo: null, payloadData: null, dateEdited: m.dateEdited, dateRetracted: null, partCount: this.partsOf(m).length });
    return out;
  }

  /** What BlueBubbles posts to webhooks for `type` about message `guid`. */
  webhookEvent(type: 'new-message' | 'updated-message', guid: string) {
    if (type === 'updated-message') {
      // handleUpdatedMessage: loadChatParticipants false, includeChats false, for notification.
      return { type, data: this.serializeMessage(guid, { forNotification: true, withChats: false, withParticipants: false, withAttachments: true, includeChats: false }) };
    }
    // handleNewMessage: { enforceMaxSize: true }, for notification; participants cleared over 4000 bytes.
    const data = this.serializeMessage(guid, { forNotification: true, withChats: true, withParticipants: true, withAttachments: true });
    if (Buffer.byteLength(JSON.stringify([data])) > 4000) for (const c of data.chats as { participants?: unknown[] }[]) if (c.participants?.length) c.participants = [];
    return { type, data };
  }

  /** BlueBubbles' emitMessageMatch: our own sent message, with the tempGuid we sent. */
  ownMessageEvent(guid: string, tempGuid: string) {
    const data = this.serializeMessage(guid, { forNotification: true, withChats: true, withParticipants: false, withAttachments: true });
    return { type: 'new-message', data: { ...data, tempGuid } };
  }

  /**
   * Messages fails one of our messages after its send was answered: MessagePoller saw it unsent
   * (resolving the send's promise), then with an error; no promise is left to reject, so it posts
   * `message-send-error` (handlePreviouslyUnsent → emitMessageError: serialized for notification,
   * chat members not loaded, with the tempGuid only when one is known).
   */
  failSent(guid: string, error = 4, tempGuid?: string) {
    this.messages.get(guid)!.error = error;
    const data = this.serializeMessage(guid, { forNotification: true, withChats: true, withParticipants: false, withAttachments: true });
    return { type: 'message-send-error', data: { ...data, ...(tempGuid !== undefined && { tempGuid }) } };
  }

  markDelivered(guid: string, at = Date.now()) {
    this.messages.get(guid)!.dateDelivered = at;
  }

  markRead(guid: string, at = Date.now()) {
    this.messages.get(guid)!.dateRead = at;
  }

  /** POSTs an event the way WebhookService.sendPost does (axios, JSON). */
  async post(url: string, event: unknown): Promise<{ status: number; body: string }> {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(event) });
    return { status: res.status, body: await res.text() };
  }

  // ---- the HTTP side ---------------------------------------------------------

  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const u = new URL(req.url ?? '/', 'http://x');
    const rec: RecordedRequest = { method: req.method ?? 'GET', path: decodeURIComponent(u.pathname), query: Object.fromEntries(u.searchParams), headers: req.headers };
    const before = this.injected.get(`${rec.method} ${rec.path}`);
    if (before && 'takeBodyUpTo' in before) {
      this.injected.delete(`${rec.method} ${rec.path}`);
      return this.takeThenStall(req, before.takeBodyUpTo);
    }
    const ct = req.headers['content-type'] ?? '';
    const boundary = ct.startsWith('multipart/form-data') ? /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(ct) : null;
    if (boundary) {
      Object.assign(rec, await readMultipart(req, (boundary[1] ?? boundary[2])!, this.keepFileBytesUpTo));
    } else {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const raw = Buffer.concat(chunks);
      if (ct.startsWith('application/json') && raw.length) rec.json = JSON.parse(raw.toString('utf8'));
    }
    this.requests.push(rec);

    const injected = this.injected.get(`${rec.method} ${rec.path}`);
    if (injected) {
      this.injected.delete(`${rec.method} ${rec.path}`);
      if ('storeThenHangMs' in injected) {
        this.route(rec);
        await new Promise((r) => setTimeout(r, injected.storeThenHangMs));
        if (!res.destroyed) res.destroy();
        return;
      }
      if ('storeThenAnswerWhen' in injected) {
        const answer = this.route(rec);
        await injected.storeThenAnswerWhen.catch(() => {});
        if (res.destroyed || !answer || 'file' in answer) return;
        return this.reply(res, answer);
      }
      if ('hangMs' in injected) {
        await new Promise((r) => setTimeout(r, injected.hangMs));
        if (res.destroyed) return;
      } else if ('reset' in injected) {
        req.socket.destroy();
        return;
      } else if ('redirect' in injected) {
        res.writeHead(302, { location: injected.redirect, 'content-type': 'text/plain' });
        res.end('Found');
        return;
      } else if ('html' in injected) {
        res.writeHead(injected.html, { 'content-type': 'text/html' });
        res.end('<html><body>Bad gateway</body></html>');
        return;
      } else if ('drip' in injected) {
        const answer = this.route(rec);
        if (!answer || !('file' in answer)) throw new Error('drip needs a file download');
        return this.drip(res, answer, injected.drip);
      } else if ('cutAfter' in injected || 'stallAfter' in injected) {
        const answer = this.route(rec);
        if (!answer || !('file' in answer)) throw new Error('cutAfter / stallAfter need a file download');
        this.fileHead(res, answer);
        const part = answer.file.subarray(0, 'cutAfter' in injected ? injected.cutAfter : injected.stallAfter);
        // Cut: the connection goes once the part is written. Stall: it stays open, silent.
        res.write(part, () => 'cutAfter' in injected && req.socket.destroy());
        return;
      } else if ('status' in injected) {
        return this.reply(res, injected);
      }
    }

    // AuthMiddleware: params.guid ?? params.password ?? params.token
    const token = rec.query.guid ?? rec.query.password ?? rec.query.token;
    if (rec.path.startsWith('/api/v1/')) {
      if (!token) return this.reply(res, unauthorized('Missing server password!'));
      if (token.trim() !== this.password.trim()) return this.reply(res, unauthorized('Unauthorized'));
    }
    if (this.messageLookupDelayMs > 0 && rec.method === 'GET' && /^\/api\/v1\/message\/[^/]+$/.test(rec.path)) {
      await new Promise((r) => setTimeout(r, this.messageLookupDelayMs));
      if (res.destroyed) return;
    }
    const answer = this.route(rec);
    if (!answer) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('Not Found');
      return;
    }
    if ('file' in answer) {
      this.fileHead(res, answer);
      res.end(answer.file);
      return;
    }
    this.reply(res, answer);
  }

  /** Reads `bytes` of the request's body, then none more (TCP's backpressure stops the client), until the client gives up. */
  private async takeThenStall(req: http.IncomingMessage, bytes: number) {
    let taken = 0;
    await new Promise<void>((resolve) => {
      const onData = (chunk: Buffer) => {
        taken += chunk.length;
        if (taken < bytes) return;
        req.off('data', onData);
        req.pause();
        this.stalledAt = Date.now();
      };
      req.on('data', onData);
      req.socket.once('close', () => resolve());
    });
  }

  private async drip(res: http.ServerResponse, a: { file: Buffer; mime: string; name: string }, d: { pieces: number; everyMs: number; stopAfter?: number }) {
    this.fileHead(res, a);
    const size = Math.ceil(a.file.length / d.pieces);
    for (let i = 0; i < d.pieces; i++) {
      if (i > 0) await sleep(d.everyMs);
      if (res.destroyed) return;
      res.write(a.file.subarray(i * size, (i + 1) * size));
      if (i + 1 === d.stopAfter) {
        this.stalledAt = Date.now();
        return; // silent, the connection open
      }
    }
    res.end();
  }

  private fileHead(res: http.ServerResponse, a: { file: Buffer; mime: string; name: string }) {
    res.writeHead(200, { 'content-type': a.mime, 'content-length': a.file.length, 'content-disposition': `attachment; filename="${a.name}"` });
  }

  private reply(res: http.ServerResponse, a: { status: number; body: unknown }) {
    res.writeHead(a.status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(a.body));
  }

  /** `checksError`: the route turns a message stored with an error into a 500 (text and multipart do; attachments do not). */
  private sentAnswer(m: StoredMessage, tempGuid: string | undefined, message: string, checksError = false) {
    const data = this.serializeMessage(m.guid, { forNotification: false, withChats: true, withParticipants: false, withAttachments: true });
    if (tempGuid) (data as Record<string, unknown>).tempGuid = tempGuid;
    if (checksError && m.error !== 0) return imessageError('Message sent with an error. See attached message', 'Message failed to send!', data);
    if (this.omitGuidInSendAnswers) delete (data as Record<string, unknown>).guid;
    return ok(data, message);
  }

  /** MessageRouter.query (MessageValidator.queryBodyRules, then iMessageRepo.getMessages). */
  private query(body: Record<string, any>) {
    const isNum = (v: unknown) => v !== undefined && v !== null && v !== '' && Number.isFinite(Number(v));
    const rules: [string, number | undefined, number | undefined][] = [['after', 0, undefined], ['before', 1, undefined], ['offset', 0, undefined], ['limit', 1, 1000]];
    if (body.with !== undefined && !Array.isArray(body.with)) return badRequest('The with must be an array.');
    if (body.where !== undefined && !Array.isArray(body.where)) return badRequest('The where must be an array.');
    if (body.sort !== undefined && !['ASC', 'DESC'].includes(body.sort)) return badRequest('The selected sort is invalid.');
    if (body.chatGuid !== undefined && typeof body.chatGuid !== 'string') return badRequest('The chatGuid must be a string.');
    for (const [k, min, max] of rules) {
      if (body[k] === undefined) continue;
      if (!isNum(body[k])) return badRequest(`The ${k} must be a number.`);
      if (min !== undefined && Number(body[k]) < min) return badRequest(`The ${k} must be at least ${min}.`);
      if (max !== undefined && Number(body[k]) > max) return badRequest(`The ${k} may not be greater than ${max}.`);
    }
    if (Array.isArray(body.where) && body.where.length > 0) throw new Error('the stand-in does not evaluate where statements');
    const withQuery = ((body.with ?? []) as unknown[]).filter((e): e is string => typeof e === 'string').map((e) => e.trim().toLowerCase());
    const has = (...names: string[]) => names.some((n) => withQuery.includes(n));
    // getMessages joins the chats for chat/chats/chat.participants, and always when a chatGuid is given.
    const withParticipants = has('chat.participants', 'chats.participants');
    const withChats = has('chat', 'chats') || withParticipants || Boolean(body.chatGuid);
    const offset = body.offset ? Number.parseInt(String(body.offset), 10) : 0;
    const limit = body.limit ? Number.parseInt(String(body.limit), 10) : 100;
    if (body.chatGuid && !this.chats.has(body.chatGuid)) return ok([], `No chat found with GUID: ${body.chatGuid}`);
    const after = body.after ? Number(body.after) : null;
    const before = body.before ? Number(body.before) : null;
    const dir = body.sort === 'ASC' ? 1 : -1;
    const all = [...this.messages.values()]
      .map((msg, i) => ({ msg, i }))
      .filter(({ msg }) => (!body.chatGuid || msg.chatGuid === body.chatGuid) && (after === null || msg.dateCreated >= after) && (before === null || msg.dateCreated <= before))
      .sort((a, b) => dir * (a.msg.dateCreated - b.msg.dateCreated || a.i - b.i));
    const data = all.slice(offset, offset + limit).map(({ msg }) =>
      this.serializeMessage(msg.guid, {
        forNotification: false, withChats, withParticipants, withAttachments: has('attachment', 'attachments'), withAttributedBody: has('attributedbody', 'attributed-body'),
      }),
    );
    return { status: 200, body: { status: 200, message: 'Successfully fetched messages!', data, metadata: { offset, limit, total: all.length, count: data.length } } };
  }

  private recipientOf(chatGuid: string) {
    return chatGuid.includes(';-;') ? chatGuid.split(';-;')[1] : undefined;
  }

  /** Who a message into the chat goes to: the person, or a group's members. */
  private membersOf(chatGuid: string): string[] {
    const to = this.recipientOf(chatGuid);
    return to !== undefined ? [to] : (this.chats.get(chatGuid)?.participants ?? []);
  }

  /**
   * The chat a send goes into, or none. The Private API sends only into a chat Messages has (the
   * helper's getIMChatFromGuid); AppleScript, failing to find the chat id, addresses the person
   * instead (actions.ts sendMessage → scripts.ts sendMessageFallback), which gets or makes the
   * Mac's chat with them, named as the Mac names it.
   */
  private sendingChat(chatGuid: string, method: string): string | undefined {
    if (this.chats.has(chatGuid)) return chatGuid;
    const to = this.recipientOf(chatGuid);
    // sendMessageFallback addresses the person on the guid's service (getServiceFromInput).
    return method === 'apple-script' && to ? this.directChat(to, chatGuid.startsWith('SMS;') ? 'SMS' : this.directChatService).guid : undefined;
  }

  private route(r: RecordedRequest): { status: number; body: unknown } | { file: Buffer; mime: string; name: string } | undefined {
    const p = r.path;
    const body = (r.json ?? r.fields ?? {}) as Record<string, any>;
    let m: RegExpExecArray | null;

    if (r.method === 'GET' && p === '/api/v1/server/info') {
      return ok({
        computer_id: this.computerId, os_version: this.osVersion, server_version: this.serverVersion, private_api: this.privateApi,
        proxy_service: 'dynamic-dns', helper_connected: this.privateApi && this.helperConnected, detected_icloud: 'line@icloud.com',
        detected_imessage: 'line@icloud.com', macos_time_sync: 0.01, local_ipv4s: ['192.168.1.20'], local_ipv6s: [],
      });
    }

    if (r.method === 'POST' && p === '/api/v1/message/text') {
      // MessageValidator.validateText
      if (typeof body.chatGuid !== 'string' || !body.chatGuid) return badRequest('The chatGuid field is required.');
      if (body.message === undefined) return badRequest('The message field must be present.');
      if (body.method !== undefined && !['apple-script', 'private-api'].includes(body.method)) return badRequest('The selected method is invalid.');
      let method = body.method ?? 'apple-script';
      if (body.effectId || body.subject || body.selectedMessageGuid || body.ddScan) method = 'private-api';
      if (method === 'apple-script' && !body.tempGuid) return badRequest("A 'tempGuid' is required when sending via AppleScript");
      if (method === 'apple-script' && !body.message) return badRequest("A 'message' is required when sending via AppleScript");
      if (body.tempGuid && this.sendCache.has(body.tempGuid)) return badRequest(`Message is already queued to be sent! (Temp GUID: ${body.tempGuid})`);
      // MessageRouter.sendText → MessageInterface.sendMessageSync
      if (method === 'private-api' && privateApiProblem(this)) return imessageError('Message Send Error', privateApiProblem(this)!);
      const chatGuid = this.sendingChat(body.chatGuid, method);
      if (!chatGuid) return imessageError('Message Send Error', method === 'private-api' ? NO_CHAT_IN_REGISTRY : `Chat does not exist: ${body.chatGuid}`);
      const to = this.recipientOf(chatGuid);
      if (to && this.unreachable.has(to)) return imessageError('Message Send Error', 'Failed to send message! See attached message error code.', { error: 22 });
      return this.sentAnswer(this.addSent(chatGuid, body.message), body.tempGuid, 'Message sent!', true);
    }

    if (r.method === 'POST' && p === '/api/v1/message/attachment') {
      const file = r.files?.attachment;
      if (!body.chatGuid) return badRequest('The chatGuid field is required.');
      if (!body.name) return badRequest('The name field is required.');
      let method = body.method ?? 'apple-script';
      if (body.effectId || body.subject || body.selectedMessageGuid) method = 'private-api';
      if (method === 'apple-script' && !body.tempGuid) return badRequest("A 'tempGuid' is required when sending via AppleScript");
      if (!file || file.size === 0) return badRequest('Attachment not provided or was empty!');
      const isAudioMessage = body.isAudioMessage === 'true';
      if (method === 'private-api' && privateApiProblem(this)) return imessageError('Attachment Send Error', privateApiProblem(this)!);
      const chatGuid = this.sendingChat(body.chatGuid, method);
      if (!chatGuid) return imessageError('Attachment Send Error', method === 'private-api' ? NO_CHAT_IN_REGISTRY : "Can't use the send message (fallback) script to text a group chat!");
      const to = this.recipientOf(chatGuid);
      if (to && this.unreachable.has(to)) return imessageError('Attachment Send Error', 'Failed to send attachment! See attached message error code.');
      // Only an .mp3 sent as an audio message is converted (to .caf); anything else goes as uploaded.
      const name = isAudioMessage && body.name.endsWith('.mp3') ? body.name.replace(/\.mp3$/, '.caf') : body.name;
      const att = this.addAttachment({ bytes: file.bytes, mimeType: file.type, transferName: name });
      return this.sentAnswer(this.addSent(chatGuid, '\uFFFC', [att], isAudioMessage), body.tempGuid, 'Attachment sent!');
    }

    if (r.method === 'POST' && p === '/api/v1/attachment/upload') {
      const denied = privateApiMiddleware(this);
      if (denied) return denied;
      const file = r.files?.attachment;
      if (!file || file.size === 0) return badRequest('Attachment not provided or was empty!');
      const ext = file.name.includes('.') ? file.name.slice(file.name.lastIndexOf('.')) : '';
      const path = `${randomUUID()}/${createHash('sha1').update(file.bytes).digest('hex')}${ext}`;
      this.uploads.set(path, { name: file.name, bytes: file.bytes });
      return ok({ path });
    }

    if (r.method === 'POST' && p === '/api/v1/message/multipart') {
      if (!body.chatGuid) return badRequest('The chatGuid field is required.');
      if (!Array.isArray(body.parts)) return badRequest('The parts field is required.');
      for (const part of body.parts) {
        if (typeof part !== 'object') return badRequest('Each part must be a dictionary');
        if (part.partIndex == null) return badRequest('Each part must have a partIndex');
        if (typeof part.partIndex !== 'number') return badRequest('Each partIndex must be a number');
        if (!part.text && !part.attachment) return badRequest('Each part must have either a text or attachment');
        if (part.attachment && !part.name) return badRequest('Each attachment must have a name');
        if (part.attachment && !this.uploads.has(part.attachment)) return badRequest(`Attachment '${part.attachment}' does not exist`);
      }
      if (privateApiProblem(this)) return imessageError('Message Send Error', privateApiProblem(this)!);
      if (!this.chats.has(body.chatGuid)) return imessageError('Message Send Error', NO_CHAT_IN_REGISTRY);
      const atts = body.parts.filter((pt: any) => pt.attachment).map((pt: any) => {
        const up = this.uploads.get(pt.attachment)!;
        return this.addAttachment({ bytes: up.bytes, mimeType: 'image/png', transferName: pt.name });
      });
      return this.sentAnswer(this.addSent(body.chatGuid, atts.map(() => '\uFFFC').join(''), atts), body.tempGuid, 'Message sent!', true);
    }

    if (r.method === 'POST' && p === '/api/v1/message/react') {
      const denied = privateApiMiddleware(this);
      if (denied) return denied;
      if (!body.chatGuid) return badRequest('The chatGuid field is required.');
      if (!body.selectedMessageGuid) return badRequest('The selectedMessageGuid field is required.');
      if (!REACTIONS.includes(body.reaction)) return badRequest('The selected reaction is invalid.');
      if (!this.messages.has(body.selectedMessageGuid)) return badRequest('Selected message does not exist!');
      if (!this.chats.has(body.chatGuid)) return imessageError('Reaction Send Error', NO_CHAT_IN_REGISTRY);
      const sent = this.addSent(body.chatGuid, `Loved \u201c${this.messages.get(body.selectedMessageGuid)!.text}\u201d`);
      sent.associatedMessageGuid = body.selectedMessageGuid;
      sent.associatedMessageType = body.reaction;
      return ok(this.serializeMessage(sent.guid, { forNotification: false, withChats: false, withParticipants: false, withAttachments: false }), 'Reaction sent!');
    }

    if ((m = /^\/api\/v1\/message\/([^/]+)\/edit$/.exec(p)) && r.method === 'POST') {
      if (typeof body.editedMessage !== 'string' || !body.editedMessage) return badRequest('The editedMessage field is required.');
      if (typeof body.backwardsCompatibilityMessage !== 'string' || !body.backwardsCompatibilityMessage) return badRequest('The backwardsCompatibilityMessage field is required.');
      const msg = this.messages.get(m[1]!);
      if (!msg) return badRequest('Selected message does not exist!');
      if (privateApiProblem(this)) return imessageError('Message Edit Error', privateApiProblem(this)!);
      msg.text = body.editedMessage;
      msg.dateEdited = Date.now();
      return ok(this.serializeMessage(msg.guid, { forNotification: false, withChats: false, withParticipants: false, withAttachments: false }), 'Message edited!');
    }

    // MessageRouter.query (MessageValidator.queryBodyRules): chatGuid, after/before (epoch ms), sort, offset, limit, with.
    if (r.method === 'POST' && p === '/api/v1/message/query') return this.query(body);

    if ((m = /^\/api\/v1\/message\/([^/]+)$/.exec(p)) && r.method === 'GET') {
      const guid = m[1]!;
      if (!this.messages.has(guid)) return notFound('Message does not exist!');
      // MessageRouter.find: chats joined only for chats/chat; with chats.participants the members go onto the
      // chat entities, which the serializer then leaves out (see the header); loadChatParticipants is on.
      const withQuery = (r.query.with ?? '').split(',').map((s) => s.trim().toLowerCase());
      const has = (...names: string[]) => names.some((n) => withQuery.includes(n));
      const withChats = has('chats', 'chat');
      return ok(
        this.serializeMessage(guid, {
          forNotification: false, withChats, withParticipants: withChats && !has('chats.participants', 'chat.participants'), withAttachments: has('attachment', 'attachments'),
          withAttributedBody: has('attributedbody', 'attributed-body'),
        }),
      );
    }

    if ((m = /^\/api\/v1\/chat\/([^/]+)\/participant\/add$/.exec(p)) && r.method === 'POST') {
      const denied = privateApiMiddleware(this);
      if (denied) return denied;
      if (typeof body.address !== 'string' || !body.address) return badRequest('The address field is required.');
      const chat = this.chats.get(m[1]!);
      if (!chat) return notFound('Chat does not exist!');
      if (chat.participants.length === 1) return serverError('Chat is not a group chat!');
      if (!chat.participants.includes(body.address)) chat.participants.push(body.address);
      return ok(this.serializeChat(chat.guid, true, false));
    }

    // ChatRouter.removeParticipant → ChatInterface.toggleParticipant(chat, address, 'remove')
    if ((m = /^\/api\/v1\/chat\/([^/]+)\/participant\/remove$/.exec(p)) && r.method === 'POST') {
      const denied = privateApiMiddleware(this);
      if (denied) return denied;
      if (typeof body.address !== 'string' || !body.address) return badRequest('The address field is required.');
      const chat = this.chats.get(m[1]!);
      if (!chat) return notFound('Chat does not exist!');
      if (chat.participants.length === 1) return serverError('Chat is not a group chat!');
      if (this.unreachable.has(body.address)) return serverError(`Failed to remove participant: ${body.address}`);
      chat.participants = chat.participants.filter((a) => a !== body.address);
      return ok(this.serializeChat(chat.guid, true, false));
    }

    // ChatRouter.find: members only with `participants` in `with`.
    if ((m = /^\/api\/v1\/chat\/([^/]+)$/.exec(p)) && r.method === 'GET') {
      const chat = this.chats.get(m[1]!);
      if (!chat) return notFound('Chat does not exist!');
      const withQuery = (r.query.with ?? '').split(',').map((s) => s.trim().toLowerCase());
      return ok(this.serializeChat(chat.guid, withQuery.includes('participants'), false));
    }

    // ChatRouter.update (ChatValidator.updateRules: displayName "string|min:1") → ChatInterface.setDisplayName
    if ((m = /^\/api\/v1\/chat\/([^/]+)$/.exec(p)) && r.method === 'PUT') {
      const denied = privateApiMiddleware(this);
      if (denied) return denied;
      if (body.displayName !== undefined && (typeof body.displayName !== 'string' || body.displayName.length < 1)) {
        return badRequest('The displayName must be at least 1 characters.');
      }
      const chat = this.chats.get(m[1]!);
      if (!chat) return notFound('Chat does not exist!');
      if (!body.displayName) return ok(this.serializeChat(chat.guid, true, false), 'Chat not updated! No update information provided!');
      if (chat.participants.length <= 1) return imessageError('Cannot rename a non-group chat!', 'Chat is not a group');
      chat.displayName = body.displayName;
      return ok(this.serializeChat(chat.guid, true, false), 'Successfully updated the following fields: displayName');
    }

    // ChatRouter.leaveChat → ChatInterface.leave: an unknown guid is quietly nothing to leave.
    if ((m = /^\/api\/v1\/chat\/([^/]+)\/leave$/.exec(p)) && r.method === 'POST') {
      const denied = privateApiMiddleware(this);
      if (denied) return denied;
      if (this.chats.has(m[1]!)) this.left.add(m[1]!);
      return ok(undefined, 'Successfully left chat!');
    }

    if (r.method === 'POST' && p === '/api/v1/chat/new') {
      if (!Array.isArray(body.addresses)) return badRequest('The addresses field is required.');
      if (body.method !== undefined && !['apple-script', 'private-api'].includes(body.method)) return badRequest('The selected method is invalid.');
      if (body.service !== undefined && !['iMessage', 'SMS'].includes(body.service)) return badRequest('The selected service is invalid.');
      for (const k of ['message', 'tempGuid', 'effectId', 'subject']) if (body[k] !== undefined && typeof body[k] !== 'string') return badRequest(`The ${k} must be a string.`);
      const method = body.method ?? 'apple-script';
      if (body.addresses.length === 0) return serverError('No addresses provided!');
      if (method === 'apple-script' && body.addresses.length > 1) return serverError('Cannot create group chats on macOS Big Sur or newer!');
      if (method === 'private-api' && !body.message) return serverError('A message is required when creating chats with the Private API!');
      if (method === 'private-api' && privateApiProblem(this)) return serverError(privateApiProblem(this)!);
      for (const a of body.addresses) if (this.unreachable.has(a)) return serverError('Failed to create new chat! Message not found after 30 seconds!');
      // The helper's create-chat: chatForIMHandle(s) gets the Mac's chat with them or makes one, then sends into it.
      const chat = body.addresses.length === 1 ? this.directChat(body.addresses[0], body.service === 'SMS' ? 'SMS' : this.directChatService) : this.groupChat(body.addresses);
      const sent = this.addSent(chat.guid, body.message);
      const data = { ...this.serializeChat(chat.guid, true, false), messages: [{ ...this.serializeMessage(sent.guid, { forNotification: false, withChats: false, withParticipants: false, withAttachments: false }), ...(body.tempGuid && { tempGuid: body.tempGuid }) }] };
      return ok(data, 'Successfully created chat!');
    }

    if ((m = /^\/api\/v1\/attachment\/([^/]+)\/download$/.exec(p)) && r.method === 'GET') {
      for (const k of ['original', 'force']) if (r.query[k] !== undefined && !['true', 'false', '1', '0'].includes(r.query[k]!)) return badRequest(`The ${k} field must be true or false.`);
      const a = this.attachments.get(m[1]!);
      if (!a) {
        // AttachmentRouter.download: `force` defaults to true, and with the Private API enabled a
        // missing row is "force-downloaded": the handler reads `.guid` of null, a TypeError, which
        // ErrorMiddleware answers 500. Only force=false (or no Private API) gives the 404.
        const force = r.query.force === undefined || r.query.force === 'true' || r.query.force === '1';
        if (force && this.privateApi) return serverError("Cannot read properties of null (reading 'guid')");
        return notFound('Attachment does not exist!');
      }
      // AttachmentRouter.download: `if (!fs.existsSync(aPath)) throw new ServerError(...)`.
      if (this.notOnDisk.has(a.guid)) return serverErrorThrown('Attachment does not exist in disk!');
      const original = r.query.original === 'true' || r.query.original === '1';
      // Without original=true BlueBubbles converts (HEIC → JPEG, CAF → MP3); the stand-in marks the bytes.
      if (!original && (a.mimeType === 'audio/x-caf' || a.mimeType === 'image/heic')) {
        return { file: Buffer.concat([Buffer.from('CONVERTED:'), a.bytes]), mime: a.mimeType === 'audio/x-caf' ? 'audio/mp3' : 'image/jpeg', name: a.transferName };
      }
      return { file: a.bytes, mime: a.mimeType, name: a.transferName };
    }

    if (r.method === 'GET' && p === '/api/v1/webhook') {
      const list = this.webhooks.filter((w) => (r.query.url ? w.url === r.query.url : true));
      return ok(list, 'Successfully fetched webhooks!');
    }

    if (r.method === 'POST' && p === '/api/v1/webhook') {
      if (typeof body.url !== 'string') return badRequest('The url field is required.');
      if (!Array.isArray(body.events)) return badRequest('The events field is required.');
      if (body.url.length === 0) return badRequest('Webhook URL is required!');
      if (!body.url.startsWith('http')) return badRequest('Webhook URL must include an HTTP scheme!');
      for (const e of body.events) {
        if (typeof e !== 'string') return badRequest('Webhook events must be strings!');
        if (!WEBHOOK_EVENTS.includes(e)) return badRequest(`Invalid webhook event: ${e}! Webhook must be one of: ${WEBHOOK_EVENTS}`);
      }
      const hook = { id: this.nextWebhookId++, url: body.url, events: [...body.events] };
      this.webhooks.push(hook);
      return ok(hook, 'Successfully created webhook!');
    }

    if ((m = /^\/api\/v1\/webhook\/(\d+)$/.exec(p)) && r.method === 'DELETE') {
      const id = Number(m[1]);
      if (!this.webhooks.some((w) => w.id === id)) return notFound('Webhook does not exist!');
      this.webhooks = this.webhooks.filter((w) => w.id !== id);
      return ok(undefined, 'Successfully deleted webhook!');
    }

    return undefined;
  }
}

export async function startStandIn(): Promise<StandIn> {
  return new StandIn().start();
}
