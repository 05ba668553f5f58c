/** Attachments, upload slots and staged voice notes, as the contract shows them. */
import { isoAt, isoOrNull } from '../../clock.js';
import type { Attachment as AttachmentView } from '../../contract/attachment.js';
import type { UploadSlot } from '../../contract/attachments-create.js';
import type { StagedVoiceNote as StagedVoiceNoteView } from '../../contract/voice-notes-stage.js';
import type { StagedVoiceNote } from '../../domain/media/voice-notes.js';
import type { Attachment } from '../../store/index.js';

export function attachmentView(a: Attachment): AttachmentView {
  return {
    attachment_id: a.id,
    content_type: a.content_type,
    size_bytes: a.size_bytes ?? a.declared_size ?? 0,
    filename: a.filename,
    uploaded_at: isoOrNull(a.uploaded_at),
    expires_at: isoAt(a.expires_at),
  };
}

/**
 * The upload slot with a token for this slot alone, never the caller's signing secret: whoever
 * is handed the upload (a browser, a worker) can upload this one file and nothing else.
 * `baseUrl` comes from configuration, never the request's Host header, which the caller controls.
 */
export function uploadSlotView(a: Attachment, uploadToken: string, baseUrl: string): UploadSlot {
  return {
    attachment_id: a.id,
    upload_url: `${baseUrl}/api/v1/attachments/${a.id}/upload`,
    required_headers: { authorization: `Bearer ${uploadToken}`, 'content-type': a.content_type },
    expires_at: isoAt(a.expires_at),
  };
}

export function stagedVoiceNoteView(v: StagedVoiceNote): StagedVoiceNoteView {
  return {
    voice_note_id: v.voiceNoteId,
    uploaded: true,
    transcoded: v.transcoded,
    duration_seconds: Math.round(v.durationSeconds * 1000) / 1000,
    container: 'caf',
    expires_at_ms: v.expiresAt,
    phone_line_id: v.lineId,
  };
}
