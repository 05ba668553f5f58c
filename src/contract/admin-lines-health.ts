import { Type, type Static } from 'typebox';
import { DateTime, Nullable } from './common.js';
import { operation } from './operation.js';
import { LineParams } from './admin-line.js';

export const LineHealth = Type.Object({
  phone_line_id: Type.String(),
  state: Type.Enum(['up', 'down', 'unknown', 'inactive'], {
    description: "up / down: as the line's driver tells (a BlueBubbles line asks its Mac); unknown: no answer within 2 s; inactive: nothing may be sent from it (turned off or no `send` capability)",
  }),
  reason: Nullable(Type.String({ description: 'why it is not up, in words' })),
  service_epoch: Nullable(
    Type.String({
      description:
        "changes whenever the line's messaging service restarts (voice notes staged before are void); an opaque value (`initial` on a simulator line whose first touch came before any restart); null: never recorded",
    }),
  ),
  service_epoch_source: Nullable(Type.Enum(['live', 'recorded'], { description: 'live: the line named it just now; recorded: the last one it named (the line is not up)' })),
  checked_at: DateTime(),
});
export type LineHealth = Static<typeof LineHealth>;

export const adminLineHealth = operation({
  operationId: 'adminLineHealth',
  method: 'GET',
  path: '/admin/v1/lines/{id}/health',
  summary: "A line's state (up, down, unknown, inactive) and its service epoch, checked now",
  description: 'Answers within about 4 s whatever the line does: the state check and the epoch each wait 2 s at most.',
  tags: ['admin'],
  auth: 'admin',
  params: LineParams,
  responses: { 200: Type.Object({ health: LineHealth }) },
  errors: [2011],
});
