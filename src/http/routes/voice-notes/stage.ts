import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { lowercaseBodyFields } from '../../normalize.js';
import { stagedVoiceNoteView } from '../../present/attachments.js';
import { stageVoiceNote } from '../../../contract/voice-notes-stage.js';
import type { VoiceNotesService } from '../../../domain/media/voice-notes.js';

/** Fits a 300-second 44.1 kHz stereo 16-bit WAV (≈53 MB) in base64 with room to spare. */
const VOICE_NOTE_BODY_LIMIT = 128 * 1024 * 1024;

export function stageVoiceNoteRoute(app: TypedApp, deps: { voiceNotes: VoiceNotesService }) {
  route(
    app,
    stageVoiceNote,
    async (req) => {
      const b = req.body;
      const staged = await deps.voiceNotes.stage(principalOf(req).tenant, {
        audioUrl: b.audio_url,
        audioBase64: b.audio_base64,
        mimeType: b.mime_type,
        durationSeconds: b.duration_seconds,
        phoneLineId: b.phone_line_id,
      });
      return stagedVoiceNoteView(staged);
    },
    // MIME types are case-insensitive: AUDIO/WAV is the enum's audio/wav.
    { bodyLimit: VOICE_NOTE_BODY_LIMIT, preValidation: lowercaseBodyFields(['mime_type']) },
  );
}
