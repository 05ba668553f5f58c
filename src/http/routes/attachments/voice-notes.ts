import { Type } from 'typebox';
import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import type { VoiceNotesService } from '../../../domain/media/voice-notes.js';

/** Fits a 300-second 44.1 kHz stereo 16-bit WAV (≈53 MB) in base64 with room to spare. */
const VOICE_NOTE_BODY_LIMIT = 128 * 1024 * 1024;

export function voiceNoteRoutes(app: TypedApp, deps: { voiceNotes: VoiceNotesService }) {
  app.post(
    '/api/v1/voice-notes',
    {
      bodyLimit: VOICE_NOTE_BODY_LIMIT,
      schema: {
        tags: ['voice notes'],
        summary: 'Stage a native voice note (WAV is converted to Opus-in-CAF; valid CAF passes through)',
        body: Type.Object(
          {
            // No minLength: an empty source is a missing one (1001), which the service says.
            audio_url: Type.Optional(Type.String({ maxLength: 2048 })),
            audio_base64: Type.Optional(Type.String()),
            mime_type: Type.Optional(Type.String({ description: 'audio/caf | audio/wav | audio/x-wav' })),
            duration_seconds: Type.Optional(Type.Number({ description: 'informational; the measured duration wins' })),
            phone_line_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            voice_note_id: Type.String(),
            uploaded: Type.Boolean(),
            transcoded: Type.Boolean(),
            duration_seconds: Type.Number(),
            container: Type.Literal('caf'),
            expires_at_ms: Type.Integer(),
            phone_line_id: Type.String(),
          }),
        },
      },
    },
    async (req) => deps.voiceNotes.stage(principalOf(req).tenant, req.body),
  );
}
