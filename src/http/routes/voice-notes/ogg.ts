import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { getVoiceNoteOgg } from '../../../contract/voice-notes-ogg.js';
import type { VoiceNoteAudio } from '../../../domain/media/voice-note-audio.js';

export function getVoiceNoteOggRoute(app: TypedApp, deps: { voiceNoteAudio: VoiceNoteAudio }) {
  route(app, getVoiceNoteOgg, async (req, reply) => {
    const ogg = await deps.voiceNoteAudio.ogg(principalOf(req).tenant.id, req.params.id);
    return reply.type('audio/ogg').header('cache-control', 'private, max-age=300').send(ogg);
  });
}
