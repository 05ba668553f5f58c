/**
 * Staged voice notes: bytes from audio_base64 or an HTTPS audio_url, made a
 * validated Opus-in-CAF (WAV is transcoded, CAF passes through), owned by one
 * line for 15 minutes and only within that line's current service epoch.
 */
import { DomainError } from '../../errors/registry.js';
import type { Clock } from '../../clock.js';
import type { Store, Tenant, PhoneLine } from '../../store/index.js';
import type { BlobStore } from '../../blobs/index.js';
import type { DriverRegistry } from '../../drivers/registry.js';
import type { OutboundFile } from '../../drivers/types.js';
import { AudioRejected, prepareVoiceNote } from '../../audio/index.js';
import { NetError, fetchBytes } from '../../net/index.js';
import { randomHex } from '../ids.js';
import { VOICE_NOTE_MIME_TYPES, normalizeMimeType, type VoiceNoteMimeType } from './vocabulary.js';
import { sendsFrom } from '../lines/service.js';

export const VOICE_NOTE_TTL_MS = 15 * 60_000;
/** Largest source accepted: a 300 s stereo 48 kHz 24-bit WAV is about 86 MB. */
export const MAX_SOURCE_BYTES = 96 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 20_000;

/** What to stage: exactly one audio source (an empty one counts as none). */
export interface StageRequest {
  audioUrl?: string;
  audioBase64?: string;
  mimeType?: string;
  /** informational; the measured duration wins */
  durationSeconds?: number;
  phoneLineId?: string;
}

export interface StagedVoiceNote {
  voiceNoteId: string;
  /** the source was converted (WAV); false when it was valid CAF already */
  transcoded: boolean;
  durationSeconds: number;
  expiresAt: number;
  /** the line that owns the staged note */
  lineId: string;
}

/** Strict base64: no data-URL prefix, only the alphabet, correct padding. */
function decodeBase64(text: string): Buffer {
  if (/^data:/i.test(text)) throw new DomainError(3004, 'audio_base64 must be the raw base64 of the bytes, without a data: URL prefix');
  const compact = text.replace(/\s+/g, '');
  if (compact.length === 0 || compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(compact)) {
    throw new DomainError(3004, 'audio_base64 is not valid base64');
  }
  return Buffer.from(compact, 'base64');
}

const isVoiceNoteMimeType = (t: string): t is VoiceNoteMimeType => (VOICE_NOTE_MIME_TYPES as readonly string[]).includes(t);

const alreadyUsed = (id: string) => new DomainError(5001, `voice note ${id} was already used for a send; stage it again`);
const voided = (id: string) => new DomainError(5001, `voice note ${id} is void: the line's service restarted since staging, so it can no longer be sent; stage it again`);

/** An empty (or blank) source is no source: missing (1001), not bytes that failed to decode. */
const given = (source: string | undefined): source is string => source !== undefined && source.trim() !== '';

export function voiceNotesService(deps: { store: Store; clock: Clock; blobs: BlobStore; drivers: DriverRegistry; allowPrivateNetworks: boolean }) {
  const { store, clock, blobs, drivers } = deps;

  const supportsVoiceNotes = (l: PhoneLine) => sendsFrom(l) && drivers.has(l.driver) && drivers.forLine(l).capabilities().has('voice_notes');

  async function chooseLine(tenant: Tenant, requested?: string): Promise<PhoneLine> {
    if (requested) {
      const line = await store.lines.get(requested);
      if (!line || line.tenant_id !== tenant.id) throw new DomainError(3002, `phone_line_id ${requested} is not a line of this project`);
      if (!supportsVoiceNotes(line)) throw new DomainError(3002, `line ${requested} cannot take voice notes right now`);
      return line;
    }
    const line = (await store.lines.listByTenant(tenant.id)).find(supportsVoiceNotes);
    if (!line) throw new DomainError(3002, 'no line of this project can take voice notes');
    return line;
  }

  async function sourceBytes(req: StageRequest): Promise<Buffer> {
    if (given(req.audioBase64)) return decodeBase64(req.audioBase64);
    const url = req.audioUrl!;
    if (!/^https:\/\//i.test(url)) throw new DomainError(1002, 'audio_url must be an https:// URL');
    try {
      return await fetchBytes({ url, timeoutMs: FETCH_TIMEOUT_MS, maxBytes: MAX_SOURCE_BYTES, allowPrivateNetworks: deps.allowPrivateNetworks });
    } catch (err) {
      if (err instanceof NetError) {
        if (err.refusedUrl) {
          throw new DomainError(1002, `audio_url is not allowed: ${err.message}`);
        }
        throw new DomainError(3004, `audio_url could not be fetched: ${err.message}`);
      }
      throw err;
    }
  }

  return {
    async stage(tenant: Tenant, req: StageRequest): Promise<StagedVoiceNote> {
      const hasUrl = given(req.audioUrl);
      const hasB64 = given(req.audioBase64);
      if (!hasUrl && !hasB64) throw new DomainError(1001, 'neither audio source was given: give exactly one of audio_url or audio_base64 (an empty one counts as missing)');
      if (hasUrl && hasB64) throw new DomainError(1002, 'give exactly one of audio_url or audio_base64, not both');
      // MIME types are case-insensitive: AUDIO/WAV is audio/wav.
      const mimeType = req.mimeType === undefined ? undefined : normalizeMimeType(req.mimeType);
      if (mimeType !== undefined && !isVoiceNoteMimeType(mimeType)) {
        throw new DomainError(1002, `mime_type must be one of ${VOICE_NOTE_MIME_TYPES.join(', ')}`);
      }
      const line = await chooseLine(tenant, req.phoneLineId);
      const bytes = await sourceBytes(req);
      if (bytes.length > MAX_SOURCE_BYTES) throw new DomainError(3004, `audio is over ${MAX_SOURCE_BYTES} bytes`);
      let prepared;
      try {
        prepared = await prepareVoiceNote(bytes, mimeType);
      } catch (err) {
        if (err instanceof AudioRejected) throw new DomainError(err.check === 'mime_type' ? 1002 : 3004, err.message);
        throw err;
      }
      const epoch = await drivers.forLine(line).serviceEpoch();
      const id = `vn_${randomHex(16)}`;
      const now = clock.now();
      const blobKey = `vn/${id}.caf`;
      await blobs.putBuffer(blobKey, prepared.caf);
      await store.media.insertVoiceNote({
        id, tenant_id: tenant.id, line_id: line.id, service_epoch: epoch, blob_key: blobKey, size_bytes: prepared.caf.length,
        duration_seconds: prepared.durationSeconds, transcoded: prepared.transcoded, created_at: now, expires_at: now + VOICE_NOTE_TTL_MS,
      });
      return { voiceNoteId: id, transcoded: prepared.transcoded, durationSeconds: prepared.durationSeconds, expiresAt: now + VOICE_NOTE_TTL_MS, lineId: line.id };
    },

    /** The staged note as a driver file, if it can still be sent from `lineId`; else 5001 saying why. */
    async resolve(tenantId: string, lineId: string, id: string): Promise<OutboundFile> {
      const vn = await store.media.getVoiceNote(tenantId, id);
      if (!vn) throw new DomainError(5001, `voice note ${id} not found`);
      if (vn.line_id !== lineId) throw new DomainError(5001, `voice note ${id} was staged on another line (${vn.line_id}); send with that phone_line_id`);
      if (clock.now() >= vn.expires_at) throw new DomainError(5001, `voice note ${id} expired; stage it again`);
      const line = await store.lines.get(lineId);
      const isVoid = async () => !line || (await drivers.forLine(line).serviceEpoch()) !== vn.service_epoch;
      // A note its line voided stays used when the send that took it failed after the restart (it is
      // not given back then): void is said first. A line that cannot tell leaves it "already used".
      if (vn.used_at != null) throw (await isVoid().catch(() => false)) ? voided(id) : alreadyUsed(id);
      if (await isVoid()) throw voided(id);
      return { attachmentId: vn.id, filename: `${vn.id}.caf`, mimeType: 'audio/x-caf', sizeBytes: vn.size_bytes, open: () => blobs.open(vn.blob_key) };
    },

    /**
     * Runs the send of a staged note, which uses it up: a second send of the same id is 5001,
     * also when two race. A failed send gives the note back for a retry; one that may have gone
     * out (`mayHaveGoneOut`: the line's answer never came) keeps it until reconciliation knows.
     */
    async useFor<T>(id: string, send: () => Promise<T>, mayHaveGoneOut?: (err: unknown) => boolean): Promise<T> {
      if (!(await store.media.useVoiceNote(id, clock.now()))) {
        throw alreadyUsed(id);
      }
      try {
        return await send();
      } catch (err) {
        if (!mayHaveGoneOut?.(err)) await store.media.releaseVoiceNote(id);
        throw err;
      }
    },

    /**
     * Whether the note of a send reconciliation is failing (it never left) can be given back, as a
     * failed send gives it back: still used, not expired, its line's service not restarted since
     * staging. Reads only: the caller releases it in the transaction that fails the message.
     */
    async canGiveBack(tenantId: string, id: string): Promise<boolean> {
      const vn = await store.media.getVoiceNote(tenantId, id);
      if (!vn || vn.used_at == null || clock.now() >= vn.expires_at) return false;
      const line = await store.lines.get(vn.line_id);
      if (!line || !drivers.has(line.driver)) return false;
      try {
        return (await drivers.forLine(line).serviceEpoch()) === vn.service_epoch;
      } catch {
        return false; // the line cannot tell now: a void note is not given back on a guess
      }
    },
  };
}

export type VoiceNotesService = ReturnType<typeof voiceNotesService>;
