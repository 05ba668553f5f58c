import { Type, type Static } from 'typebox';
import { operation } from './operation.js';
import { ConsoleSession } from './console-sessions.js';

export const CreateConsoleSessionRequest = Type.Union(
  [
    Type.Object(
      { kind: Type.Literal('tenant'), tenant: Type.String({ minLength: 1, maxLength: 100, description: 'the tenant slug' }), secret: Type.String({ minLength: 1, maxLength: 500, description: 'the account signing secret' }) },
      { additionalProperties: false },
    ),
    Type.Object({ kind: Type.Literal('operator'), admin_token: Type.String({ minLength: 1, maxLength: 500 }) }, { additionalProperties: false }),
  ],
  { description: 'a tenant signs in with its slug and signing secret; the operator with the admin token' },
);
export type CreateConsoleSessionRequest = Static<typeof CreateConsoleSessionRequest>;

export const createConsoleSession = operation({
  operationId: 'createConsoleSession',
  method: 'POST',
  path: '/api/v1/console/sessions',
  summary: 'Sign in to the console: swaps credentials for a session cookie',
  description:
    'Sets an HttpOnly, SameSite=Strict `blueline_session` cookie (Secure when PUBLIC_BASE_URL is https) valid for 12 hours. ' +
    "A tenant's session ends sooner when the signing secret it was signed in with stops working (a rotation's overlap ends; " +
    'at once with overlap 0, except for the session that rotated, which moves to the new secret), and for good when the tenant ' +
    'is suspended or the account is no longer verified. ' +
    'With it, the API accepts the browser\'s requests without credentials; state-changing ones must come from this origin and carry ' +
    '`x-csrf-token`. Ten failed sign-ins from one address within a minute make the next ones 429 / 1007 until the minute has passed.',
  tags: ['console'],
  auth: 'none',
  body: CreateConsoleSessionRequest,
  responses: { 201: ConsoleSession },
  errors: [2004, 2005, 2007, 1007],
});
