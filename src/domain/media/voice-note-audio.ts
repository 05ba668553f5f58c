/**
 * A voice note as Ogg Opus for browsers: a staged or sent note (vn_…), or an inbound one
 * (an attachment holding Opus CAF). The CAF's packets are rewrapped, not re-encoded.
 */
import { DomainError } from '../../errors/registry.js';
import type { Store } from '../../store/index.js';
import type { BlobStore } from '../../blobs/index.js';
import type { Clock } from '../../clock.js';
import { cafToOggOpus } from '../../audio/ogg.js';
import { AudioRejected } from '../../audio/errors.js';

export function voiceNoteAudio(deps: { store: Store; blobs: BlobStore; clock: Clock }) {
  const { store, blobs, clock } = deps;

  async function cafOf(tenantId: string, id: string): Promise<Buffer> {
    const vn = await store.media.getVoiceNote(tenantId, id);
    const key = vn ? vn.blob_key : await attachmentKey(tenantId, id);
    try {
      return await blobs.read(key);
    } catch {
      throw new DomainError(5001, `voice note ${id} has no audio any more`);
    }
  }

  async function attachmentKey(tenantId: string, id: string): Promise<string> {
    const a = await store.media.getAttachment(tenantId, id);
    if (!a || a.state !== 'uploaded' || !/caf/i.test(a.content_type)) throw new DomainError(5001, `voice note ${id} not found`);
    // An inbound memo is an attachment: past its retention it answers as the content route does (housekeeping deletes its file).
    if (clock.now() >= a.expires_at) throw new DomainError(5001, `voice note ${id} has expired`);
    return a.blob_key;
  }

  return {
    async ogg(tenantId: string, id: string): Promise<Buffer> {
      const caf = await cafOf(tenantId, id);
      try {
        return cafToOggOpus(caf);
      } catch (err) {
        if (err instanceof AudioRejected) throw new DomainError(5001, `voice note ${id} is not Opus audio this route can rewrap: ${err.message}`);
        throw err;
      }
    },
  };
}

export type VoiceNoteAudio = ReturnType<typeof voiceNoteAudio>;
