/** The account resource of the admin API. */
import { Type, type Static } from 'typebox';
import { DateTime } from './common.js';

export const Account = Type.Object({
  id: Type.String({ description: 'acct_…' }),
  name: Type.String(),
  multi_tenant: Type.Boolean({ description: 'false: the account keeps one tenant, and its secret names it' }),
  email_verified: Type.Boolean({ description: 'false: its requests are 403 / 2007' }),
  created_at: DateTime(),
});
export type Account = Static<typeof Account>;

export const AccountParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100, description: 'acct_…' }) });
