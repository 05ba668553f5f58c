import { Type } from 'typebox';
import { NoQuery } from './common.js';
import { operation } from './operation.js';

export const getVoiceNoteOgg = operation({
  operationId: 'getVoiceNoteOgg',
  method: 'GET',
  path: '/api/v1/voice-notes/{id}/audio.ogg',
  summary: 'A staged or sent voice note as Ogg Opus (its packets rewrapped, not re-encoded), for browsers',
  description: 'Browsers cannot play Opus in CAF; this is the same audio in an Ogg container. Inbound voice notes are attachments (GET /attachments/{id}/content).',
  tags: ['voice notes'],
  auth: 'tenant',
  params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100, description: 'vn_…' }) }),
  query: NoQuery,
  responses: {},
  rawResponses: { 200: { contentType: 'audio/ogg', description: 'Ogg Opus' } },
  errors: [5001],
});
