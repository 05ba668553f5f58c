import { Type } from 'typebox';
import { ErrorEnvelope } from './common.js';
import { operation } from './operation.js';

/** The hook's own answers (BlueBubbles reads none of them; they help whoever debugs a Mac). */
const HookAnswer = Type.Object({ ok: Type.Boolean(), error: Type.Optional(Type.String()) });

/**
 * Where a line's BlueBubbles Server posts its webhooks (operator-facing: the URL is registered
 * with the Mac when the line is saved). BlueBubbles does not sign webhooks: the path carries a
 * per-line token. Answered once the body is stored; a worker processes it.
 */
export const bluebubblesWebhook = operation({
  operationId: 'bluebubblesWebhook',
  method: 'POST',
  path: '/hooks/bluebubbles/{lineId}/{token}',
  summary: "Receive a BlueBubbles Server webhook for a line (its token in the path)",
  tags: ['hooks'],
  auth: 'none',
  params: Type.Object({ lineId: Type.String(), token: Type.String() }),
  body: Type.Unknown({ description: 'the BlueBubbles webhook (new-message, updated-message)' }),
  responses: {
    200: HookAnswer,
    400: Type.Union([HookAnswer, ErrorEnvelope([1002, 1004])]),
    401: HookAnswer,
    404: HookAnswer,
    503: HookAnswer,
  },
  errors: [],
  hidden: true,
});
