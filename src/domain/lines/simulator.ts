/**
 * Operator controls of simulated lines (the sandbox's stand-in for a Mac): what the device
 * was asked to send and the exact bytes of it, a restart of its messaging service, and
 * messages arriving as if a person sent them.
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { DomainError } from '../../errors/registry.js';
import type { Clock } from '../../clock.js';
import type { Message, Store, PhoneLine } from '../../store/index.js';
import type { BlobStore } from '../../blobs/index.js';
import type { DriverEvents, DriverStatePort, Tapback } from '../../drivers/types.js';
import { restartSimulatedService } from '../../drivers/simulator/index.js';
import { normalizeHandle } from '../handles.js';
import { EDIT_WINDOW_MS } from '../messaging/message-ops.js';

/** A stored file to hand out whole or by byte range. */
export interface StoredFile {
  size: number;
  contentType: string;
  filename: string | null;
  open(range?: { start: number; end: number }): Readable;
}

/** One thing the device was asked to do, as the simulator driver logged it (its kind, when, and what). */
export type DeviceLogEntry = { kind: string; at: string } & Record<string, unknown>;

/** A message as a person would send it to the line: text, or parts (media as bytes). */
export interface SimulatedInbound {
  from: string;
  text?: string;
  parts?: readonly ({ type: 'text'; value?: string } | { type: 'media'; filename?: string; mimeType?: string; contentBase64?: string })[];
  /** a group chat: the provider's chat key and its members */
  chat?: { chatKey: string; handles: readonly string[]; displayName?: string };
  /** the provider's message guid (a report of the same guid again is the same message) */
  guid?: string;
  /** instead of a message: a tapback from `from` on one of the line's messages */
  reaction?: { messageId: string; reaction: Tapback; remove?: boolean };
  /** instead of a message: `from` edits a message they sent the line */
  edit?: { messageId: string; text: string };
}

export function simulatorControls(deps: { store: Store; clock: Clock; events: DriverEvents; blobs: BlobStore; state: DriverStatePort }) {
  const { store, clock, blobs } = deps;

  async function simulatedLine(id: string): Promise<PhoneLine> {
    const line = await store.lines.get(id);
    if (!line) throw new DomainError(2011, `phone line ${id} not found`);
    if (line.driver !== 'simulator') throw new DomainError(1011, `line ${id} uses the ${line.driver} driver, not the simulator`);
    return line;
  }

  /** A message of this line that its device knows (it has a guid there), else undefined. */
  async function messageOnLine(line: PhoneLine, id: string): Promise<(Message & { provider_guid: string }) | undefined> {
    const m = await store.messages.get(line.tenant_id, id);
    return m && m.line_id === line.id && m.provider_guid ? (m as Message & { provider_guid: string }) : undefined;
  }

  /** `from` puts a tapback on (or takes it off) a message of the line, as the driver would report it. */
  async function tapback(line: PhoneLine, from: string, r: NonNullable<SimulatedInbound['reaction']>, msg: SimulatedInbound): Promise<{ guid: string }> {
    if (msg.text !== undefined || msg.parts !== undefined) throw new DomainError(1011, 'a reaction comes without text or parts');
    const target = await messageOnLine(line, r.messageId);
    if (!target) throw new DomainError(2003, `message ${r.messageId} not found on this line`);
    const guid = msg.guid ?? `sim-in-${randomUUID()}`;
    await deps.events.reaction(line.id, { targetGuid: target.provider_guid, reaction: r.reaction, remove: r.remove ?? false, from, atMs: clock.now() });
    return { guid };
  }

  /** `from` edits a message they sent the line, as the driver would report it (the message keeps its guid). */
  async function edit(line: PhoneLine, from: string, e: NonNullable<SimulatedInbound['edit']>, msg: SimulatedInbound): Promise<{ guid: string }> {
    if (msg.text !== undefined || msg.parts !== undefined || msg.reaction) throw new DomainError(1011, 'an edit comes without text, parts or a reaction');
    const target = await messageOnLine(line, e.messageId);
    // Only its sender edits a message: another person's, or one the line sent, reads as not found.
    if (!target || target.direction !== 'inbound' || target.sender_handle !== from) {
      throw new DomainError(2003, `message ${e.messageId} from ${from} not found on this line`);
    }
    // Messages gives a message's sender the same 15 minutes it gives the line.
    if (clock.now() - target.sent_at > EDIT_WINDOW_MS) {
      throw new DomainError(1012, `message ${e.messageId} was sent more than 15 minutes ago: Messages no longer lets its sender edit it`);
    }
    await deps.events.edited(line.id, target.provider_guid, e.text, clock.now());
    return { guid: target.provider_guid };
  }

  return {
    /**
     * The device log, newest first: each entry as the driver wrote it. A tapback or an edit names
     * its message by guid only; the entry also gets the message's id, text and (an inbound one's)
     * sender, so a reader sees which message it was (an inbound one is nowhere else in the log).
     */
    async sent(lineId: string, limit: number): Promise<{ id: string; entry: DeviceLogEntry }[]> {
      await simulatedLine(lineId);
      const rows = await store.simulatorLog.recent(lineId, limit);
      const known = new Map<string, Promise<{ message_id: string; message_text?: string; message_from?: string } | undefined>>();
      const messageOf = (guid: string) => {
        if (!known.has(guid)) {
          known.set(
            guid,
            store.messages.byProviderGuid(lineId, guid).then((m) => {
              if (!m) return undefined;
              const text = m.parts.find((p) => p.type === 'text')?.value;
              return { message_id: m.id, ...(text !== undefined && { message_text: text }), ...(m.direction === 'inbound' && m.sender_handle && { message_from: m.sender_handle }) };
            }),
          );
        }
        return known.get(guid)!;
      };
      return Promise.all(
        rows.map(async (r) => {
          // Written by the simulator driver alone (drivers/simulator: log()).
          const entry = r.entry as DeviceLogEntry;
          const pointsAtMessage = (entry.kind === 'reaction' || entry.kind === 'edit') && typeof entry.guid === 'string';
          return { id: r.id, entry: pointsAtMessage ? { ...entry, ...(await messageOf(entry.guid as string)) } : entry };
        }),
      );
    },

    /** The exact bytes of a media file (`att_…`) or voice note (`vn_…`) the device was asked to send. */
    async sentFile(lineId: string, fileId: string): Promise<StoredFile> {
      const line = await simulatedLine(lineId);
      // By id, not by the line's tenant: what the line sent before it moved to another tenant
      // stays in its device log, and its content_path must still answer.
      if (fileId.startsWith('vn_')) {
        const vn = await store.media.getVoiceNoteById(fileId);
        if (!vn || vn.line_id !== line.id) throw new DomainError(5001, `voice note ${fileId} not found on this line`);
        return { size: vn.size_bytes, contentType: 'audio/x-caf', filename: `${fileId}.caf`, open: (r) => blobs.open(vn.blob_key, r) };
      }
      const a = await store.media.getAttachmentById(fileId);
      if (!a || a.state !== 'uploaded') throw new DomainError(5001, `attachment ${fileId} not found`);
      // As the content route answers: past retention its file is (or soon will be) deleted by housekeeping.
      if (clock.now() >= a.expires_at) throw new DomainError(5001, `attachment ${fileId} has expired`);
      return { size: a.size_bytes ?? 0, contentType: a.content_type, filename: a.filename, open: (r) => blobs.open(a.blob_key, r) };
    },

    /** Restarts the line's messaging service: a new service epoch (staged voice notes are void). */
    async restart(lineId: string): Promise<string> {
      await simulatedLine(lineId);
      return restartSimulatedService({ lineId, state: deps.state, now: clock.now });
    },

    /** Delivers a message to the line as the driver would report it; answers its guid. */
    async inbound(lineId: string, msg: SimulatedInbound): Promise<{ guid: string }> {
      const line = await simulatedLine(lineId);
      const from = normalizeHandle(msg.from);
      if (!from) throw new DomainError(1003, `from "${msg.from}" is neither an E.164 number nor an email handle`);
      if (msg.edit) return edit(line, from.value, msg.edit, msg);
      if (msg.reaction) return tapback(line, from.value, msg.reaction, msg);
      const parts = msg.parts ?? (msg.text ? [{ type: 'text' as const, value: msg.text }] : []);
      if (parts.length === 0) throw new DomainError(1001, 'give text or parts');
      const guid = msg.guid ?? `sim-in-${randomUUID()}`;
      const handles = msg.chat?.handles.map((h) => normalizeHandle(h)?.value ?? h);
      await deps.events.inbound(line.id, {
        guid,
        from: from.value,
        ...(msg.chat && { group: { chatKey: msg.chat.chatKey, handles: handles!, displayName: msg.chat.displayName } }),
        parts: parts.map((p) =>
          p.type === 'text'
            ? { type: 'text' as const, value: p.value ?? '' }
            : { type: 'media' as const, filename: p.filename, mimeType: p.mimeType, open: async () => ({ body: Readable.from([Buffer.from(p.contentBase64 ?? '', 'base64')]) }) },
        ),
        sentAt: clock.now(),
      });
      return { guid };
    },
  };
}

export type SimulatorControls = ReturnType<typeof simulatorControls>;
