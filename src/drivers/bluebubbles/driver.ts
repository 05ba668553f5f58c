/**
 * The BlueBubbles line driver: a Mac running BlueBubbles Server is the phone
 * line, reached over its REST API (routes and fields from BlueBubbles'
 * httpRoutes.ts and its validators).
 *
 * Capabilities: text and media always work (AppleScript). Grouped media,
 * voice notes, edits, reactions, participant changes and group creation need
 * the Private API: on in the server (`private_api`), its helper connected
 * (`helper_connected`), and not turned off in the line's driver_config.
 * The driver learns this from GET /api/v1/server/info, re-asked at most every
 * INFO_TTL_MS (capabilities() stays synchronous and answers from that cache).
 *
 * A person's chat goes by the guid BlueBubbles named for it (direct-chats.ts); when the Private
 * API has no chat under the guid tried, a text starts one with /chat/new, a file goes by
 * AppleScript, and a voice note is refused (a text must come first).
 *
 * Service epoch, availability and the server's info: server-state.ts.
 */
import { randomUUID } from 'node:crypto';
import { multipartBody, type MultipartField } from '../../net/multipart.js';
import type { DriverCapability, DriverContext, LineDriver, OutboundFile, SendOptions, Tapback, Target } from '../types.js';
import { DriverFailure } from '../types.js';
import type { BBChat, BBMessage, BBServerInfo } from './api-types.js';
import { BlueBubblesClient } from './client.js';
import { parseConfig, type BlueBubblesConfig } from './config.js';
import { isNoSuchChat, toDriverFailure, type Operation } from './errors.js';
import { sendWindowMs, uploadAnswerMs, uploadBodyMs } from './file-limits.js';
import { serverState } from './server-state.js';
import { isAppleEffectId, editFallbackText, reactionValue, storedFailed } from './mapping.js';
import { directChats, directGuidOf, serviceOf } from './direct-chats.js';
import { lookupCreatedGroup, lookupSentMessage } from './lookup.js';

/**
 * How long BlueBubbles itself waits for Messages to confirm a change before it answers (its
 * resultAwaiter: 30 s for an edit or a group change, 60 s for a reaction, each ~43 / ~64 s with
 * its back-off). These calls wait at least that long: a shorter wait cut off a change Messages
 * was still making, or refusing (an edit after 15 minutes, a sixth edit, a member already in),
 * and reported a Mac that had answered as down.
 */
const CONFIRMED_CHANGE_MS = 50_000;
const CONFIRMED_REACTION_MS = 75_000;

const ALWAYS: DriverCapability[] = ['text', 'media'];
const PRIVATE_API: DriverCapability[] = ['grouped_media', 'voice_notes', 'edit', 'react', 'participants', 'create_group'];

export interface BlueBubblesLineDriver extends LineDriver {
  /** Asks the server for its info now (updates capabilities); DriverFailure('line_down') when it cannot. */
  refresh(): Promise<BBServerInfo>;
  /** The last server info seen, if any. */
  serverInfo(): BBServerInfo | undefined;
}

export interface BlueBubblesDriverOptions {
  /** Replaces global fetch (tests). */
  fetch?: typeof fetch;
  /** Ask server/info once right away, in the background (default true). */
  probeOnStart?: boolean;
}

/** A Private API send refused because Messages has no chat with the person under that guid (nothing went out). */
class NoChat {
  constructor(readonly handle: string) {}
}

/** Our send's ref in its tempGuid (one per request BlueBubbles gets), for its logs and webhooks. */
const newTempGuid = (ref?: string, part?: number) => (ref ? `temp-${ref}${part === undefined ? '' : `-${part}`}` : `temp-${randomUUID()}`);
const enc = encodeURIComponent;

/**
 * The multipart body of an upload: the fields, then the file streamed from the blob store as the
 * request sends it (never whole in memory; its size is the stored one, sent as Content-Length).
 * A blob that cannot be read fails here, before anything reaches BlueBubbles.
 */
function uploadBody(file: OutboundFile, name: string, fields: MultipartField[] = []) {
  return multipartBody([
    ...fields,
    { name: 'attachment', filename: name, contentType: file.mimeType || 'application/octet-stream', size: file.sizeBytes, open: () => file.open() },
  ]);
}

export function bluebubblesDriver(ctx: DriverContext, options: BlueBubblesDriverOptions = {}): BlueBubblesLineDriver {
  const parsed = parseConfig(ctx.config);
  const cfg: BlueBubblesConfig | undefined = parsed.ok ? parsed.config : undefined;
  const client = cfg ? new BlueBubblesClient(cfg, options.fetch) : undefined;
  const chats = directChats(ctx);

  function invalid(): DriverFailure {
    return new DriverFailure('line_down', `the line's BlueBubbles driver_config is invalid: ${parsed.ok ? '' : parsed.problems.join('; ')}`);
  }

  const server = serverState(ctx, client, cfg, invalid);
  const { noteFailure, privateApiOn, ensureInfoForSend, requirePrivateApi } = server;

  async function call<T>(op: Operation, work: (c: BlueBubblesClient) => Promise<T>): Promise<T> {
    if (!client) throw invalid();
    try {
      return await work(client);
    } catch (err) {
      noteFailure(err, op);
      throw toDriverFailure(err, op);
    }
  }

  const confirmedWait = (serverWaitMs: number) => Math.max(cfg!.timeoutMs, serverWaitMs);

  /** As call('send'), except that a person's chat Messages does not have answers NoChat. */
  async function sendOrNoChat<T>(target: Target, work: (c: BlueBubblesClient) => Promise<T>): Promise<T | NoChat> {
    if (!client) throw invalid();
    try {
      return await work(client);
    } catch (err) {
      if (target.kind === 'direct' && isNoSuchChat(err)) return new NoChat(target.handle);
      noteFailure(err);
      throw toDriverFailure(err, 'send');
    }
  }

  /** A send's answer names the person's chat (data.chats[0]): kept when it is not the guid the send went to. */
  async function noteChat(target: Target, sentTo: string, sent: BBMessage | undefined): Promise<void> {
    const named = directGuidOf(sent?.chats?.[0]);
    if (target.kind === 'direct' && named && named !== sentTo) await chats.remember(target.handle, named);
  }

  /**
   * A person's first message over the Private API, when Messages has no chat with them: POST
   * /api/v1/chat/new (ChatRouter.create → ChatInterface.createWithPrivateApi; the helper's
   * create-chat gets or makes the Mac's chat with them and sends the text into it). Its answer is
   * the chat, whose guid is kept, with the message in messages[0]. It takes the text's effectId
   * (ChatValidator.createRules) but no ddScan.
   */
  async function startChat(handle: string, guessed: string, text: string, tempGuid: string, effectId?: string): Promise<string> {
    const json = { addresses: [handle], message: text, method: 'private-api', service: serviceOf(guessed), tempGuid, ...(effectId && { effectId }) };
    const env = await call('send', (c) => c.request<BBChat>('POST', '/api/v1/chat/new', { json }));
    const chatGuid = directGuidOf(env.data);
    if (chatGuid) await chats.remember(handle, chatGuid);
    const first = env.data?.messages?.[0];
    failedInMessages(first, 'message');
    return reportSend(tempGuid, first);
  }

  /**
   * The guid we report for a send: BlueBubbles' real guid, else our tempGuid. In the latter case
   * BlueBubbles later posts our own message with both (its emitMessageMatch), and the webhook
   * handler renames the stored message's guid (DriverEvents.sendMatched).
   */
  function reportSend(tempGuid: string, sent: BBMessage | undefined): string {
    return typeof sent?.guid === 'string' && sent.guid !== '' ? sent.guid : tempGuid;
  }

  /**
   * BlueBubbles answers an attachment or a reaction 200 with the message Messages stored, even
   * when it stored it failed: only its text and multipart routes turn a non-zero `error` into a
   * 500 (MessageRouter.sendAttachment / .react vs .sendText).
   */
  function failedInMessages(sent: BBMessage | undefined, what: string): void {
    const code = sent?.error;
    if (storedFailed(sent)) throw new DriverFailure('unreachable', `Messages did not deliver the ${what} (its error ${code}), although BlueBubbles answered it sent`);
  }

  const method = () => (privateApiOn() ? 'private-api' : 'apple-script');
  /** An upload's limits (file-limits.ts): its body idle, within its size's time; then the answer's wait. */
  const uploadLimits = (file: OutboundFile) => ({ bodyLimitMs: uploadBodyMs(cfg!.timeoutMs, file.sizeBytes), timeoutMs: uploadAnswerMs(cfg!.timeoutMs) });

  async function sendAttachment(target: Target, file: OutboundFile, audio: boolean, tempGuid: string): Promise<string> {
    const name = audio && !file.filename.toLowerCase().endsWith('.caf') ? `${file.filename.replace(/\.[^./]*$/, '')}.caf` : file.filename;
    const chatGuid = await chats.guidFor(target);
    const upload = async (c: BlueBubblesClient, how: string) => {
      const fields: MultipartField[] = [
        { name: 'chatGuid', value: chatGuid },
        { name: 'tempGuid', value: tempGuid },
        { name: 'name', value: name },
        { name: 'method', value: how },
        ...(audio ? [{ name: 'isAudioMessage', value: 'true' }] : []),
      ];
      const multipart = await uploadBody(file, name, fields);
      return c.request<BBMessage>('POST', '/api/v1/message/attachment', { multipart, ...uploadLimits(file) });
    };
    let env = await sendOrNoChat(target, (c) => upload(c, audio ? 'private-api' : method()));
    if (env instanceof NoChat) {
      // Over the Private API only a text starts a chat (/chat/new needs a message). A file goes by
      // AppleScript then, which addresses the person when the chat id is unknown; a voice note
      // cannot (it is one only over the Private API).
      if (audio) throw new DriverFailure('unsupported', `Messages has no chat with ${env.handle} yet, and BlueBubbles starts one only with a text: send a text first, then the voice note`);
      env = await call('send', (c) => upload(c, 'apple-script'));
    }
    failedInMessages(env.data, audio ? 'voice note' : 'attachment');
    await noteChat(target, chatGuid, env.data);
    return reportSend(tempGuid, env.data);
  }

  /** undefined: Messages has no chat with the person yet (a multipart send needs one). */
  async function sendGrouped(target: Target, files: OutboundFile[], ref?: string): Promise<string | undefined> {
    const parts: { partIndex: number; attachment: string; name: string }[] = [];
    for (const [i, file] of files.entries()) {
      const multipart = await uploadBody(file, file.filename);
      const env = await call('upload', (c) => c.request<{ path?: string }>('POST', '/api/v1/attachment/upload', { multipart, ...uploadLimits(file) }));
      const path = env.data?.path;
      if (typeof path !== 'string' || path === '') throw new DriverFailure('rejected', 'BlueBubbles accepted an upload but named no path for it');
      parts.push({ partIndex: i, attachment: path, name: file.filename });
    }
    const tempGuid = newTempGuid(ref);
    const chatGuid = await chats.guidFor(target);
    const env = await sendOrNoChat(target, (c) =>
      c.request<BBMessage>('POST', '/api/v1/message/multipart', { json: { chatGuid, tempGuid, parts }, timeoutMs: uploadAnswerMs(cfg!.timeoutMs) }),
    );
    if (env instanceof NoChat) return undefined;
    await noteChat(target, chatGuid, env.data);
    return reportSend(tempGuid, env.data);
  }

  /** Asks the Mac after a send or a group creation the service lost track of; its own failures say `unknown`. */
  async function lookup<R>(find: (c: BlueBubblesClient) => Promise<R>): Promise<R | { state: 'unknown'; reason: string }> {
    if (!client) return { state: 'unknown', reason: invalid().message };
    try {
      return await find(client);
    } catch (err) {
      noteFailure(err);
      const failure = toDriverFailure(err, 'lookup');
      return { state: 'unknown', reason: failure instanceof Error ? failure.message : 'BlueBubbles could not be asked' };
    }
  }

  if (client && options.probeOnStart !== false) server.refreshQuietly();

  return {
    available: server.available,
    capabilities() {
      if (!cfg) return new Set<DriverCapability>();
      return new Set<DriverCapability>(server.privateApiNow() ? [...ALWAYS, ...PRIVATE_API] : ALWAYS);
    },

    refresh: server.refresh,
    serverInfo: server.info,
    serviceEpoch: server.serviceEpoch,

    async sendText(target, text, opts: SendOptions = {}) {
      let effectId: string | undefined;
      if (opts.effect) {
        effectId = opts.effect;
        if (!isAppleEffectId(effectId)) throw new DriverFailure('rejected', `${opts.effect} is not an Apple effect id`);
        await requirePrivateApi('message effects');
      } else {
        await ensureInfoForSend();
      }
      const tempGuid = newTempGuid(opts.ref);
      const pa = privateApiOn();
      const chatGuid = await chats.guidFor(target);
      const body: Record<string, unknown> = { chatGuid, tempGuid, message: text, method: pa ? 'private-api' : 'apple-script' };
      if (effectId) body.effectId = effectId;
      if (opts.richLinkUrl && pa) body.ddScan = true;
      const env = await sendOrNoChat(target, (c) => c.request<BBMessage>('POST', '/api/v1/message/text', { json: body }));
      if (env instanceof NoChat) return { guid: await startChat(env.handle, chatGuid, text, tempGuid, effectId) };
      await noteChat(target, chatGuid, env.data);
      return { guid: reportSend(tempGuid, env.data) };
    },

    async sendMedia(target, files, opts) {
      if (files.length === 0) throw new DriverFailure('rejected', 'no files to send');
      await ensureInfoForSend();
      if (opts.grouped && files.length > 1 && privateApiOn()) {
        const guid = await sendGrouped(target, files, opts.ref);
        if (guid) return { guids: [guid] };
      }
      // Without the Private API (or a chat with the person yet) a group of images goes out one by one, in order.
      const guids: string[] = [];
      for (const [i, f] of files.entries()) guids.push(await sendAttachment(target, f, false, newTempGuid(opts.ref, files.length > 1 ? i : undefined)));
      return { guids };
    },

    async sendVoiceNote(target, file, opts = {}) {
      await requirePrivateApi('voice notes');
      return { guid: await sendAttachment(target, file, true, newTempGuid(opts.ref)) };
    },

    async lookupSend(_ref, probe) {
      return lookup((c) => lookupSentMessage(c, probe));
    },

    async lookupGroup(_ref, probe) {
      return lookup((c) => lookupCreatedGroup(c, probe));
    },

    /** Every request a send may make, at its longest; a file's upload grows with its bytes (file-limits.ts). */
    sendWindowMs: (load) => (cfg ? sendWindowMs(cfg.timeoutMs, load) : 0),

    async edit(guid, partIndex, newText) {
      await requirePrivateApi('editing');
      await call('edit', (c) =>
        c.request('POST', `/api/v1/message/${enc(guid)}/edit`, {
          json: { editedMessage: newText, backwardsCompatibilityMessage: editFallbackText(newText), partIndex },
          timeoutMs: confirmedWait(CONFIRMED_CHANGE_MS),
        }),
      );
    },

    async react(guid, tapback: Tapback, remove) {
      await requirePrivateApi('reactions');
      const found = await call('react', (c) => c.request<BBMessage>('GET', `/api/v1/message/${enc(guid)}`, { query: { with: 'chats' } }));
      const chatGuid = found.data?.chats?.find((ch) => typeof ch.guid === 'string')?.guid;
      if (!chatGuid) throw new DriverFailure('not_found', `BlueBubbles knows no chat for message ${guid}`);
      const sent = await call('react', (c) =>
        c.request<BBMessage>('POST', '/api/v1/message/react', { json: { chatGuid, selectedMessageGuid: guid, reaction: reactionValue(tapback, remove), partIndex: 0 }, timeoutMs: confirmedWait(CONFIRMED_REACTION_MS) }),
      );
      failedInMessages(sent.data, 'reaction');
    },

    async addParticipant(chatKey, handle) {
      await requirePrivateApi('participant changes');
      await call('participant', (c) => c.request('POST', `/api/v1/chat/${enc(chatKey)}/participant/add`, { json: { address: handle }, timeoutMs: confirmedWait(CONFIRMED_CHANGE_MS) }));
    },

    // BlueBubbles' chat routes (httpRoutes.ts, ChatRouter): all behind its PrivateApiMiddleware.
    async removeParticipant(chatKey, handle) {
      await requirePrivateApi('participant changes');
      await call('participant', (c) => c.request('POST', `/api/v1/chat/${enc(chatKey)}/participant/remove`, { json: { address: handle }, timeoutMs: confirmedWait(CONFIRMED_CHANGE_MS) }));
    },

    async renameGroup(chatKey, displayName) {
      await requirePrivateApi('group changes');
      await call('participant', (c) => c.request('PUT', `/api/v1/chat/${enc(chatKey)}`, { json: { displayName }, timeoutMs: confirmedWait(CONFIRMED_CHANGE_MS) }));
    },

    async leaveGroup(chatKey) {
      await requirePrivateApi('group changes');
      await call('participant', (c) => c.request('POST', `/api/v1/chat/${enc(chatKey)}/leave`, { timeoutMs: confirmedWait(CONFIRMED_CHANGE_MS) }));
    },

    async createGroup(handles, text, opts = {}) {
      await requirePrivateApi('group creation');
      const tempGuid = newTempGuid(opts.ref);
      const env = await call('create_group', (c) =>
        c.request<BBChat>('POST', '/api/v1/chat/new', { json: { addresses: handles, message: text, method: 'private-api', service: 'iMessage', tempGuid } }),
      );
      const chatKey = env.data?.guid;
      if (typeof chatKey !== 'string' || chatKey === '') throw new DriverFailure('rejected', 'BlueBubbles created no chat (its answer names no chat guid)');
      // Messages may fail the first message of a group it made: the group stays, the message is failed.
      const first = env.data?.messages?.[0];
      return { chatKey, guid: reportSend(tempGuid, first), ...(storedFailed(first) && { firstMessageFailed: true }) };
    },
  };
}
