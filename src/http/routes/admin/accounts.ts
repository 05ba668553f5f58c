import { Type } from 'typebox';
import type { TypedApp } from '../../typed.js';
import type { AccountsService } from '../../../domain/accounts-tenants/service.js';
import type { Account } from '../../../store/index.js';
import { AccountSchema } from './schemas.js';
import { isoAt } from '../../../clock.js';

const adminConfig = { auth: 'admin' as const };
const tags = ['admin'];
const show = (a: Account) => ({ ...a, created_at: isoAt(a.created_at) });
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

export function adminAccountRoutes(app: TypedApp, deps: { accounts: AccountsService }) {
  const { accounts } = deps;

  app.post(
    '/admin/v1/accounts',
    {
      config: adminConfig,
      schema: {
        tags,
        summary: 'Create an account; its signing secret is shown only in this response',
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 200 }),
            multi_tenant: Type.Optional(Type.Boolean()),
            email_verified: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
        response: { 201: Type.Object({ account: AccountSchema, signing_secret: Type.String() }) },
      },
    },
    async (req, reply) => {
      const { account, signing_secret } = await accounts.createAccount(req.body);
      return reply.status(201).send({ account: show(account), signing_secret });
    },
  );

  app.get(
    '/admin/v1/accounts',
    { config: adminConfig, schema: { tags, response: { 200: Type.Object({ accounts: Type.Array(AccountSchema) }) } } },
    async () => ({ accounts: (await accounts.listAccounts()).map(show) }),
  );

  app.get(
    '/admin/v1/accounts/:id',
    { config: adminConfig, schema: { tags, params: IdParams, response: { 200: Type.Object({ account: AccountSchema }) } } },
    async (req) => ({ account: show(await accounts.getAccount(req.params.id)) }),
  );

  app.patch(
    '/admin/v1/accounts/:id',
    {
      config: adminConfig,
      schema: {
        tags,
        params: IdParams,
        body: Type.Object(
          {
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            multi_tenant: Type.Optional(Type.Boolean()),
            email_verified: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ account: AccountSchema }) },
      },
    },
    async (req) => ({ account: show(await accounts.updateAccount(req.params.id, req.body)) }),
  );

  app.post(
    '/admin/v1/accounts/:id/rotate-secret',
    {
      config: adminConfig,
      schema: {
        tags,
        summary: 'Issue a new signing secret; the old one works until the overlap ends',
        params: IdParams,
        body: Type.Object(
          { overlap_hours: Type.Optional(Type.Number({ minimum: 0, maximum: 24 * 90 })) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ signing_secret: Type.String(), previous_secret_expires_at: Type.String() }),
        },
      },
    },
    async (req) => {
      const hours = req.body.overlap_hours;
      return accounts.rotateSecret(req.params.id, hours === undefined ? undefined : hours * 3600_000);
    },
  );
}
