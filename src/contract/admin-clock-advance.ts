import { Type, type Static } from 'typebox';
import { DateTime } from './common.js';
import { operation } from './operation.js';

export const AdvanceClockResponse = Type.Object({ now: DateTime('business time after the move') });
export type AdvanceClockResponse = Static<typeof AdvanceClockResponse>;

export const adminAdvanceClock = operation({
  operationId: 'adminAdvanceClock',
  method: 'POST',
  path: '/admin/v1/clock/advance',
  summary: 'Move business time forward (test clock only)',
  description: 'Exists only with BLUELINE_TEST_CLOCK=1; otherwise 404.',
  tags: ['admin'],
  auth: 'admin',
  body: Type.Object({ ms: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
  responses: { 200: AdvanceClockResponse },
  errors: [],
});
