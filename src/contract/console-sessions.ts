/** The console session resource (sign-in answers and GET /console/session). */
import { Type, type Static } from 'typebox';
import { DateTime, Nullable } from './common.js';

export const ConsoleSession = Type.Object({
  kind: Type.Enum(['tenant', 'operator'], { type: 'string' }),
  tenant: Nullable(Type.Object({ id: Type.String(), slug: Type.String(), name: Type.String() })),
  csrf_token: Type.String({ description: 'send it as x-csrf-token on every state-changing request made with this session' }),
  expires_at: DateTime('12 hours after sign-in'),
});
export type ConsoleSession = Static<typeof ConsoleSession>;
