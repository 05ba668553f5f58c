/**
 * The simulator: a sandbox Mac line. It keeps its device log and service
 * epoch in the database (through the driver state port), assigns guids,
 * reports delivered then read receipts shortly after a send, and can be
 * configured per line:
 *   { "voice_notes": false, "edits": false, "auto_reply": "text",
 *     "receipt_delay_ms": 200 }
 */
import { randomUUID } from 'node:crypto';
import type { DriverCapability, DriverContext, LineDriver, OutboundFile, SendOptions, Tapback, Target } from '../types.js';
import { DRIVER_CAPABILITIES, DriverFailure } from '../types.js';
import { SIMULATOR_RECIPIENTS } from './reserved.js';

const DEFAULT_RECEIPT_DELAY_MS = 250;
/** A simulated send is one database write: anything older and not in the log never reached the device. */
const SEND_WINDOW_MS = 2_000;
/** Device log entries are searched from a little before the message was recorded (clock steps between the two). */
export const LOOKUP_SLACK_MS = 60_000;

/**
 * How a device-log id logged at `ms` begins: its time, so ids sort in the order the device
 * received them, and every entry logged before `ms` sorts below this (housekeeping deletes by it).
 */
export const deviceLogIdPrefix = (ms: number) => `dev_${ms.toString(36).padStart(10, '0')}_`;

/**
 * The answer a line whose reply never comes gets: the service's wait for it times out, as a
 * BlueBubbles send's does (ambiguous: it may have gone out). The simulator answers so at once
 * rather than after a real wait, so no request (and no shutdown) waits on it; the message stays
 * `sending` until reconciliation reads the device log, when the send window (SEND_WINDOW_MS) ends.
 */
const noAnswer = (what: 'send' | 'group creation') =>
  new DriverFailure('ambiguous', `simulated: the line's answer never came; ${what === 'send' ? 'the message may have gone out' : 'the group may have been created'}`);

/** The admin path that serves the exact bytes of a file the device was asked to send. */
export const deviceContentPath = (lineId: string, attachmentId: string) =>
  `/admin/v1/lines/${lineId}/simulate/content/${attachmentId}`;

export function simulatorDriver(ctx: DriverContext): LineDriver {
  const cfg = ctx.config;
  const caps = new Set<DriverCapability>(DRIVER_CAPABILITIES);
  if (cfg.voice_notes === false) caps.delete('voice_notes');
  if (cfg.edits === false) caps.delete('edit');
  if (cfg.reactions === false) caps.delete('react');
  const receiptDelay = typeof cfg.receipt_delay_ms === 'number' ? cfg.receipt_delay_ms : DEFAULT_RECEIPT_DELAY_MS;
  let seq = 0;

  /**
   * A UUIDv7 (time first): guids are indexed by line, and a key that grows with time lands on
   * the index's last page, where a random UUID dirtied a page of its own per send for the next
   * commit to write (commits' share of the service's CPU under bench/send.ts: 10.6% → 6.3%).
   * A real line's guids are whatever its provider makes.
   */
  const newGuid = () => {
    const time = ctx.now().toString(16).padStart(12, '0');
    return `sim-${time.slice(0, 8)}-${time.slice(8, 12)}-7${randomUUID().slice(15)}`;
  };

  /** Log ids sort in the order the device received them. */
  const logId = () => `${deviceLogIdPrefix(ctx.now())}${(seq++).toString(36).padStart(6, '0')}_${randomUUID().slice(0, 8)}`;

  function recipientOf(target: Target): string | undefined {
    return target.kind === 'direct' ? target.handle : undefined;
  }

  async function checkReachable(target: Target) {
    const to = recipientOf(target);
    if (to === SIMULATOR_RECIPIENTS.stallsBeforeDevice) throw noAnswer('send');
    if (to === SIMULATOR_RECIPIENTS.unreachable) throw new DriverFailure('unreachable', `simulated: ${to} is not reachable on iMessage`);
    if (to === SIMULATOR_RECIPIENTS.lineDown) throw new DriverFailure('line_down', 'simulated: the line is down');
  }

  async function log(entry: Record<string, unknown>) {
    await ctx.state.appendDeviceLog(logId(), ctx.lineId, { ...entry, at: new Date(ctx.now()).toISOString() }, ctx.now());
  }

  /** After the device got the send: the answer for this recipient never comes (no receipts either). */
  function answerLost(target: Target) {
    if (recipientOf(target) === SIMULATOR_RECIPIENTS.stallsAfterDevice) throw noAnswer('send');
  }

  async function scheduleReceipts(target: Target, guid: string) {
    if (recipientOf(target) === SIMULATOR_RECIPIENTS.stallsAfterDevice) return;
    if (recipientOf(target) === SIMULATOR_RECIPIENTS.undelivered) return;
    if (recipientOf(target) === SIMULATOR_RECIPIENTS.failsAfterSend) {
      setTimeout(() => {
        ctx.events.sendFailed(ctx.lineId, guid).catch(() => {
          /* as a receipt: dropped for a message the service no longer knows */
        });
      }, receiptDelay).unref();
      return;
    }
    const fire = (kind: 'delivered' | 'read', delay: number) =>
      setTimeout(() => {
        ctx.events.receipt(ctx.lineId, guid, kind, ctx.now()).catch(() => {
          /* a receipt for a message the service no longer knows is dropped */
        });
      }, delay).unref();
    fire('delivered', receiptDelay);
    fire('read', receiptDelay * 2);
  }

  function maybeAutoReply(target: Target) {
    const reply = cfg.auto_reply;
    if (typeof reply !== 'string' || target.kind !== 'direct') return;
    setTimeout(() => {
      ctx.events
        .inbound(ctx.lineId, { guid: newGuid(), from: target.handle, parts: [{ type: 'text', value: reply }], sentAt: ctx.now() })
        .catch(() => {});
    }, receiptDelay * 3).unref();
  }

  const ref = (r: string | undefined) => (r ? { ref: r } : {});
  const describeTarget = (target: Target) => (target.kind === 'direct' ? { to: target.handle } : { chat_key: target.chatKey });
  const describeFile = (f: OutboundFile) => ({
    attachment_id: f.attachmentId,
    filename: f.filename,
    mime_type: f.mimeType,
    size_bytes: f.sizeBytes,
    content_path: deviceContentPath(ctx.lineId, f.attachmentId),
  });

  function require(cap: DriverCapability, what: string) {
    if (!caps.has(cap)) throw new DriverFailure('unsupported', `${what} is turned off on this simulated line`);
  }

  return {
    capabilities: () => caps,

    async serviceEpoch() {
      const epoch = await ctx.state.serviceEpoch(ctx.lineId);
      if (epoch) return epoch;
      // Only if the line still has none: another process naming the first one at the same time wins or loses, never both.
      return (await ctx.state.replaceServiceEpoch(ctx.lineId, undefined, `epoch-${randomUUID()}`, ctx.now())).epoch;
    },

    async sendText(target, text, opts: SendOptions = {}) {
      await checkReachable(target);
      const guid = newGuid();
      await log({ kind: 'text', guid, ...ref(opts.ref), ...describeTarget(target), text, ...(opts.effect && { effect: opts.effect }), ...(opts.richLinkUrl && { rich_link: opts.richLinkUrl }) });
      answerLost(target);
      await scheduleReceipts(target, guid);
      maybeAutoReply(target);
      return { guid };
    },

    async sendMedia(target, files, opts) {
      require('media', 'media');
      await checkReachable(target);
      if (opts.grouped) {
        const guid = newGuid();
        await log({ kind: 'media_group', guid, ...ref(opts.ref), ...describeTarget(target), parts: files.map(describeFile) });
        answerLost(target);
        await scheduleReceipts(target, guid);
        return { guids: [guid] };
      }
      const guids: string[] = [];
      for (const f of files) {
        const guid = newGuid();
        await log({ kind: 'media', guid, ...ref(opts.ref), ...describeTarget(target), parts: [describeFile(f)] });
        await scheduleReceipts(target, guid);
        guids.push(guid);
      }
      answerLost(target);
      return { guids };
    },

    async sendVoiceNote(target, file, opts = {}) {
      require('voice_notes', 'voice notes');
      await checkReachable(target);
      const guid = newGuid();
      await log({ kind: 'voice_note', guid, ...ref(opts.ref), ...describeTarget(target), is_audio_message: true, parts: [describeFile(file)] });
      answerLost(target);
      await scheduleReceipts(target, guid);
      return { guid };
    },

    /** The device log tells: an entry under `ref` (the first bubble's guid) is a send that went out. */
    async lookupSend(sendRef, probe) {
      const entry = await ctx.state.findDeviceLog(ctx.lineId, sendRef, probe.recordedAt - LOOKUP_SLACK_MS);
      return entry && typeof entry.guid === 'string' ? { state: 'sent', guid: entry.guid } : { state: 'not_sent' };
    },

    sendWindowMs: () => SEND_WINDOW_MS,

    async edit(guid, partIndex, newText) {
      require('edit', 'editing');
      await log({ kind: 'edit', guid, part_index: partIndex, text: newText });
    },

    async react(guid, tapback: Tapback, remove) {
      require('react', 'reactions');
      await log({ kind: 'reaction', guid, tapback, remove });
    },

    async addParticipant(chatKey, handle) {
      require('participants', 'participant changes');
      if (handle === SIMULATOR_RECIPIENTS.rejectsParticipantAdd) {
        throw new DriverFailure('rejected', `simulated: ${handle} cannot be added to the group`);
      }
      await log({ kind: 'add_participant', chat_key: chatKey, handle });
    },

    async removeParticipant(chatKey, handle) {
      require('participants', 'participant changes');
      if (handle === SIMULATOR_RECIPIENTS.rejectsParticipantRemove) {
        throw new DriverFailure('rejected', `simulated: ${handle} cannot be removed from the group`);
      }
      await log({ kind: 'remove_participant', chat_key: chatKey, handle });
    },

    async renameGroup(chatKey, displayName) {
      require('participants', 'group changes');
      await log({ kind: 'rename_group', chat_key: chatKey, display_name: displayName });
    },

    async leaveGroup(chatKey) {
      require('participants', 'group changes');
      await log({ kind: 'leave_group', chat_key: chatKey });
    },

    async createGroup(handles, text, opts = {}) {
      require('create_group', 'group creation');
      for (const h of handles) {
        if (h === SIMULATOR_RECIPIENTS.unreachable) throw new DriverFailure('unreachable', `simulated: ${h} is not reachable on iMessage`);
      }
      if (handles.includes(SIMULATOR_RECIPIENTS.stallsBeforeDevice)) throw noAnswer('group creation');
      const chatKey = `iMessage;+;chat${randomUUID().replace(/-/g, '').slice(0, 18)}`;
      const guid = newGuid();
      await log({ kind: 'create_group', guid, ...ref(opts.ref), chat_key: chatKey, handles, text });
      if (handles.includes(SIMULATOR_RECIPIENTS.stallsAfterDevice)) throw noAnswer('group creation');
      await scheduleReceipts({ kind: 'group', chatKey }, guid);
      return { chatKey, guid };
    },

    /** The device log tells: a `create_group` entry under `ref` is a group that was created. */
    async lookupGroup(groupRef, probe) {
      const entry = await ctx.state.findDeviceLog(ctx.lineId, groupRef, probe.recordedAt - LOOKUP_SLACK_MS);
      return entry?.kind === 'create_group' && typeof entry.chat_key === 'string' && typeof entry.guid === 'string'
        ? { state: 'created', chatKey: entry.chat_key, guid: entry.guid }
        : { state: 'not_created' };
    },
  };
}

/** A simulated restart of the line's messaging service: a new epoch. */
export async function restartSimulatedService(ctx: Pick<DriverContext, 'lineId' | 'now'> & { state: Pick<DriverContext['state'], 'setServiceEpoch'> }): Promise<string> {
  const epoch = `epoch-${randomUUID()}`;
  await ctx.state.setServiceEpoch(ctx.lineId, epoch, ctx.now());
  return epoch;
}
