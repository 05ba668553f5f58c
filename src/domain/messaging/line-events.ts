/**
 * What drivers report. Receipts and late failures update outbound messages; one whose guid names
 * no message yet (its send's answer not stored yet) is tried again for a while (unmatched-reports.ts).
 * An inbound message is stored with its media (`in_…` attachments), its lead and chat, its
 * `message.received` event and one delivery job per matching subscription — all in one
 * transaction (the event log is written before any delivery attempt), then the worker and
 * streams are woken.
 */
import type { DriverEvents, InboundMessage } from '../../drivers/types.js';
import type { Store, Repos, Chat, Tenant, MessagePart, PhoneLine } from '../../store/index.js';
import type { Clock } from '../../clock.js';
import type { BlobStore } from '../../blobs/index.js';
import type { EventBus } from '../events/bus.js';
import { newUuid, randomHex } from '../ids.js';
import { findOrCreateDirect } from './direct-chats.js';
import { receiptWriter } from './receipts.js';
import { RETENTION_MS } from '../media/attachments.js';
import { messageReactions } from './reactions.js';
import type { InboundPart } from '../events/envelope.js';
import { inboundRecord } from './inbound-record.js';
import { recordDirectInbound } from './inbound-direct.js';
import { failUndelivered, NOT_SENT_CODE, type UndeliveredDeps } from './undelivered.js';
import { changeAnnounced, type StatusEvents } from './status-events.js';
import type { UnmatchedReports } from './unmatched-reports.js';

/**
 * The largest inbound file kept. The spec limits uploads (100 MB per PUT), not inbound files; a
 * file was held whole in a Buffer before it was streamed, so none larger than Node 20's largest
 * Buffer (4 GiB) was ever kept: that ceiling stays, and nothing below it is refused. A larger file
 * fails its message (BlobTooLarge), as it failed before (it could not be held), and nothing of it
 * is kept. It also sets the S3 store's part size, which stays at its 5 MiB minimum for this limit.
 */
export const MAX_INBOUND_FILE_BYTES = 4 * 1024 ** 3;

export interface LineEventsDeps {
  store: Store;
  clock: Clock;
  blobs: BlobStore;
  bus: EventBus;
  /** `data.crm_deep_link`, with {chat_id} and {tenant} to fill in. */
  deepLinkTemplate: string;
  /** Gives back the staged voice note of a message its line failed after accepting it. */
  media?: UndeliveredDeps['media'];
  /** Records the status events (delivered, read, failed) for the projects that subscribe to them. */
  statusEvents?: StatusEvents;
  /** Holds receipts and late failures whose guid names no message yet, and tries them again. */
  unmatchedReports: UnmatchedReports;
  /** Told of each message failed after its line accepted it, also when that comes from a report tried again (metrics). */
  onFailedAfterSend?: () => void;
}

/**
 * The chat an inbound message belongs to, creating its lead, chat and participants as needed.
 * A direct chat's only participant is its lead's handle, so it is known without a read.
 */
async function chatFor(
  tx: Repos,
  tenant: Tenant,
  line: PhoneLine,
  msg: InboundMessage,
  now: number,
): Promise<{ chat: Chat; leadId: string | null; participants: string[] }> {
  const lineId = line.id;
  if (!msg.group) {
    const { lead, chat } = await findOrCreateDirect(tx, tenant.id, msg.from, now, lineId);
    // The directChat follows the line the contact wrote to: replies come from the number
    // they see the thread under, and the event's owner_handle is the line replies go out on.
    if (chat.line_id !== lineId) await tx.chats.pinLine(chat.id, lineId);
    return { chat: { ...chat, line_id: lineId }, leadId: lead.id, participants: [msg.from] };
  }
  const { lead } = await tx.chats.upsertLead({ id: newUuid(), tenant_id: tenant.id, handle: msg.from, created_at: now });
  const chat =
    (await tx.chats.chatByKey(tenant.id, msg.group.chatKey)) ??
    (await tx.chats.ensureChat({
      id: `ch_${randomHex(16)}`, tenant_id: tenant.id, is_group: true, lead_id: null, line_id: lineId, convo_id: newUuid(),
      chat_key: msg.group.chatKey, display_name: msg.group.displayName ?? null, created_at: now,
    }));
  // The sender is a member whether or not the provider listed them; the line itself is not a participant.
  for (const h of new Set([msg.from, ...msg.group.handles])) {
    if (h !== line.phone_number) await tx.chats.addParticipant(chat.id, h, now);
  }
  return { chat, leadId: lead.id, participants: await tx.chats.participants(chat.id) };
}

export function lineEvents(deps: LineEventsDeps): DriverEvents {
  const { store, clock, blobs, bus } = deps;
  const receipts = receiptWriter(store, deps.statusEvents);
  const reactions = messageReactions({ store, statusEvents: deps.statusEvents });
  const { unmatchedReports } = deps;

  /** 'unknown' when the line has no message by this guid (yet); else whether the late failure changed it. */
  async function failLate(lineId: string, guid: string): Promise<boolean | 'unknown'> {
    const m = await store.messages.byProviderGuid(lineId, guid);
    if (!m) return 'unknown';
    if (m.direction !== 'outbound') return false;
    // Which states a late failure may still change is failAfterSend's rule (store), checked as it writes.
    const failed = await failUndelivered({ store, media: deps.media, statusEvents: deps.statusEvents }, m, (tx) => tx.messages.failAfterSend(m.id, NOT_SENT_CODE));
    if (failed) deps.onFailedAfterSend?.();
    return failed;
  }

  /** The send known by `provisionalGuid` (its tempGuid) is known by `realGuid` from now on; false while neither names one. */
  async function matchSend(lineId: string, provisionalGuid: string, realGuid: string): Promise<boolean> {
    if (provisionalGuid !== realGuid && (await store.messages.renameProviderGuid(lineId, provisionalGuid, realGuid))) return true;
    return (await store.messages.byProviderGuid(lineId, realGuid)) !== undefined;
  }

  return {
    async reaction(lineId, r) {
      await reactions.fromLine(lineId, r);
    },

    async receipt(lineId, guid, kind, atMs) {
      if (await receipts.apply(lineId, guid, kind, atMs)) return;
      unmatchedReports.hold(kind, lineId, guid, () => receipts.apply(lineId, guid, kind, atMs));
    },

    async sendMatched(lineId, provisionalGuid, realGuid) {
      if (await matchSend(lineId, provisionalGuid, realGuid)) return true;
      // The send's answer (its tempGuid) may not be stored yet: tried again, as a receipt is. Its
      // receipts under the real guid, held meanwhile, match once the rename is done.
      if (provisionalGuid !== realGuid) unmatchedReports.hold('matched', lineId, provisionalGuid, () => matchSend(lineId, provisionalGuid, realGuid));
      return false;
    },

    async sendFailed(lineId, guid) {
      const failed = await failLate(lineId, guid);
      if (failed !== 'unknown') return failed;
      unmatchedReports.hold('failed', lineId, guid, async () => (await failLate(lineId, guid)) !== 'unknown');
      return false;
    },

    async edited(lineId, guid, text, atMs) {
      const m = await store.messages.byProviderGuid(lineId, guid);
      if (!m || m.direction !== 'inbound') return;
      // The edit replaces the message's text; media parts stay as they were.
      let replaced = false;
      const parts = m.parts.flatMap((p): MessagePart[] => {
        if (p.type !== 'text') return [p];
        if (replaced) return [];
        replaced = true;
        return [{ type: 'text' as const, value: text }];
      });
      if (!replaced && text) parts.unshift({ type: 'text', value: text });
      const change = async (repos: Repos) => {
        await repos.messages.update(m.id, { parts, edited_at: atMs });
        return true;
      };
      await changeAnnounced(deps.statusEvents, store, 'message.edited', m, change);
    },

    async inbound(lineId, msg) {
      const hasMedia = msg.parts.some((p) => p.type === 'media');
      // A driver may report a message twice; with media, find out before writing its bytes again.
      if (hasMedia && (await store.messages.byProviderGuid(lineId, msg.guid))) return false;

      // Media bytes first (outside the transaction): an orphaned blob is harmless, a lost one is not.
      // Each file streams from the driver into the blob store (never held whole); its size is what
      // was written. A file that fails (not to be had yet, cut off mid-body) fails the message as
      // the driver's failure, and the files stored before it are deleted: nothing is kept of it.
      const media: { id: string; blobKey: string; filename?: string; mimeType: string; size: number }[] = [];
      try {
        for (const p of msg.parts) {
          if (p.type !== 'media') continue;
          const id = `in_${randomHex(16)}`;
          const blobKey = `in/${id}`;
          const file = await p.open();
          let size: number;
          try {
            size = await blobs.put(blobKey, file.body, MAX_INBOUND_FILE_BYTES);
          } finally {
            file.body.destroy(); // read to its end, or given up: either way the download is let go
          }
          media.push({ id, blobKey, filename: p.filename || file.filename, mimeType: mediaType(p.mimeType) ?? mediaType(file.mimeType) ?? 'application/octet-stream', size });
        }
      } catch (err) {
        await Promise.all(media.map((m) => blobs.delete(m.blobKey).catch(() => {})));
        throw err;
      }
      let mediaIndex = 0;
      const parts: InboundPart[] = msg.parts.map((p) => {
        if (p.type === 'text') return p;
        const m = media[mediaIndex++]!;
        return { type: 'media', attachment_id: m.id, ...(m.filename && { filename: m.filename }), mime_type: m.mimeType, size_bytes: m.size };
      });

      // PostgreSQL records a direct text message in one statement when it can (inbound-direct.ts).
      if (!media.length && !msg.group && store.inboundDirect.supported) {
        const direct = await recordDirectInbound(deps, lineId, msg, parts, clock.now());
        if (direct !== 'fallback') {
          if (direct) bus.eventRecorded(direct.id);
          return direct !== null;
        }
      }
      // The reads are in the transaction too: there they need not wait for other requests' writes to commit.
      const recordedFor = await store.transaction(async (tx): Promise<Tenant | undefined> => {
        // The event's time, and its id's, are read in the transaction: read before (before the media
        // bytes were stored, say), an event recorded meanwhile would be newer yet committed first, and
        // a stream that sent it would resume past this one (streams follow ids, the dev inbox times).
        // On SQLite transactions run one at a time, so ids then follow the order events commit in.
        const now = clock.now();
        const owned = await tx.lines.getWithTenant(lineId);
        if (!owned) return undefined;
        const { line, tenant } = owned;
        if (await tx.messages.byProviderGuid(lineId, msg.guid)) return undefined; // reported twice
        const { chat, leadId, participants } = await chatFor(tx, tenant, line, msg, now);
        const subscriptions = await tx.events.subscriptions(tenant.id);
        const { message, event, jobs } = inboundRecord({
          tenant, line, chat, leadId, participants, msg, parts, subscriptions, nowMs: now, deepLinkTemplate: deps.deepLinkTemplate,
        });
        if (!(await tx.events.insertEvent(event))) return undefined; // the same guid was recorded already
        await tx.messages.insert(message);
        // A reply from a handle linked to a HubSpot contact: queued for the reply push, with the message.
        await tx.hubspotPush.queueReply(message, now);
        for (const m of media) {
          await tx.media.insertAttachment({
            id: m.id, tenant_id: tenant.id, origin: 'inbound', filename: m.filename ?? null, content_type: m.mimeType,
            declared_size: m.size, size_bytes: m.size, state: 'uploaded', blob_key: m.blobKey, created_at: now, uploaded_at: now,
            expires_at: now + RETENTION_MS,
          });
        }
        await tx.events.insertJobs(jobs);
        return tenant;
      });
      if (recordedFor) bus.eventRecorded(recordedFor.id);
      return recordedFor !== undefined;
    },
  };
}

/**
 * A media type a device reported, as the API reports types: lower case, without parameters;
 * undefined for none or for something that is no type/subtype (served as a Content-Type, it would
 * be the sender's text in a response header).
 */
function mediaType(reported: string | undefined): string | undefined {
  const type = reported?.split(';')[0]!.trim().toLowerCase();
  return type && /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/.test(type) ? type : undefined;
}
