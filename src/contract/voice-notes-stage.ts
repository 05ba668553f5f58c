import { Type, type Static } from 'typebox';
import { operation } from './operation.js';
import { VOICE_NOTE_MIME_TYPES } from '../domain/media/vocabulary.js';

/**
 * Exactly one audio source, checked by the service rather than a oneOf: an empty source counts
 * as none, neither is 1001 and both 1002 (spec), which one schema failure could not tell apart.
 */
export const StageVoiceNoteRequest = Type.Object(
  {
    audio_url: Type.Optional(Type.String({ maxLength: 2048, description: 'a public https:// URL of the audio (else 1002); exactly one of audio_url, audio_base64' })),
    audio_base64: Type.Optional(Type.String({ description: 'the raw bytes in base64, no data: prefix (else 3004); exactly one of audio_url, audio_base64' })),
    mime_type: Type.Optional(Type.Enum(VOICE_NOTE_MIME_TYPES, { type: 'string', description: 'recommended (any case); checked against the bytes (3004)' })),
    duration_seconds: Type.Optional(Type.Number({ description: 'informational; the measured duration wins' })),
    phone_line_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'the line to own the note (else one that can take voice notes is chosen; none: 3002)' })),
  },
  {
    additionalProperties: false,
    description: 'Exactly one of audio_url or audio_base64 (an empty one counts as missing): neither is 1001, both 1002.',
  },
);
export type StageVoiceNoteRequest = Static<typeof StageVoiceNoteRequest>;

export const StagedVoiceNote = Type.Object({
  voice_note_id: Type.String({ description: 'vn_…; send it with the same phone_line_id before expires_at_ms' }),
  uploaded: Type.Literal(true),
  transcoded: Type.Boolean({ description: 'true when converted (WAV); false when the bytes were valid CAF already' }),
  duration_seconds: Type.Number({ description: 'measured from the staged audio' }),
  container: Type.Literal('caf'),
  expires_at_ms: Type.Integer({ description: 'Unix ms; also void once the line\'s service restarts' }),
  phone_line_id: Type.String({ description: 'the line that owns the staged note' }),
});
export type StagedVoiceNote = Static<typeof StagedVoiceNote>;

export const stageVoiceNote = operation({
  operationId: 'stageVoiceNote',
  method: 'POST',
  path: '/api/v1/voice-notes',
  summary: 'Stage a native voice note (WAV is converted to Opus-in-CAF; valid CAF passes through)',
  description: 'The staged note is owned by one line for 15 minutes, and void once that line\'s service restarts.',
  tags: ['voice notes'],
  auth: 'tenant',
  body: StageVoiceNoteRequest,
  responses: { 200: StagedVoiceNote },
  errors: [1001, 3002, 3004],
});
