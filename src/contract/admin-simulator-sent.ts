import { Type, type Static } from 'typebox';
import { DateTime } from './common.js';
import { operation } from './operation.js';
import { SimulatedLineParams } from './admin-simulator.js';

/** One thing the simulated device was asked to do; the fields beyond kind depend on it. */
export const DeviceLogEntry = Type.Object(
  {
    id: Type.String(),
    kind: Type.String({ description: 'text, media, media_group, voice_note, edit, reaction, add_participant, remove_participant, rename_group, leave_group, create_group' }),
    at: DateTime(),
  },
  {
    additionalProperties: true,
    description:
      'media entries list parts with a content_path serving the exact bytes; a sent message names its message id as ref; reaction and edit entries name their message by guid, and by message_id, message_text (its first text part) and message_from (the sender of an inbound message) when the line has it',
  },
);

export const DeviceLogResponse = Type.Object({ sent: Type.Array(DeviceLogEntry, { description: 'newest first; each entry is kept 30 days' }) });
export type DeviceLogResponse = Static<typeof DeviceLogResponse>;

export const adminSimulatorSent = operation({
  operationId: 'adminSimulatorSent',
  method: 'GET',
  path: '/admin/v1/lines/{id}/simulate/sent',
  summary: 'What the simulated device was asked to send, newest first',
  tags: ['admin'],
  auth: 'admin',
  params: SimulatedLineParams,
  query: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 200 })) }, { additionalProperties: false }),
  responses: { 200: DeviceLogResponse },
  errors: [2011, 1011],
});
