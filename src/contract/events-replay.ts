import { Type, type Static } from 'typebox';
import { operation } from './operation.js';

export const ReplaySucceeded = Type.Object(
  {
    ok: Type.Literal(true),
    downstream_status: Type.Integer({ description: 'the first 2xx a destination answered' }),
    message: Type.String({ description: 'how many destinations took it, and what the others answered' }),
  },
  { description: 'At least one destination answered 2xx: the event is delivered' },
);
export type ReplaySucceeded = Static<typeof ReplaySucceeded>;

/** The spec's replay failure: its own flat shape, not the error envelope. */
export const ReplayFailed = Type.Object(
  {
    ok: Type.Literal(false),
    error: Type.Literal('replay_failed'),
    downstream_status: Type.Integer({ description: "the first destination's answer; 0 when none arrived" }),
    code: Type.Literal(4001),
    message: Type.String(),
    retryable: Type.Boolean({ description: 'false when every destination answered 4xx (their final word)' }),
    trace_id: Type.String(),
  },
  { description: 'No destination answered 2xx: the event is failed' },
);
export type ReplayFailed = Static<typeof ReplayFailed>;

export const replayEvent = operation({
  operationId: 'replayEvent',
  method: 'POST',
  path: '/api/v1/events/{id}/replay',
  summary: 'Re-deliver now to every destination, or only ?subscription_id=',
  description:
    'Appends fresh attempts; the event\'s status follows the result. No destination (or a dev-inbox event) is 400 / 1002; ' +
    'so is a disabled subscription, which receives nothing, a replay included, until it is enabled again. ' +
    'A replay no destination took answers 502 with its own shape (not the error envelope).',
  tags: ['events'],
  auth: 'tenant-header',
  params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100, description: 'evt_…' }) }),
  query: Type.Object({ subscription_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'only this subscription (an empty value is refused, not read as every one)' })) }, { additionalProperties: false }),
  responses: { 200: ReplaySucceeded, 502: ReplayFailed },
  errors: [2011],
});
