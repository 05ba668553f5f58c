import { Type } from 'typebox';
import type { TypedApp } from '../../typed.js';
import type { AccountsService } from '../../../domain/accounts-tenants/service.js';
import type { Tenant } from '../../../store/index.js';
import { TenantSchema, TenantSettings } from './schemas.js';
import { isoAt } from '../../../clock.js';

const adminConfig = { auth: 'admin' as const };
const tags = ['admin'];
const show = (t: Tenant) => ({ ...t, crm_install_slots: t.crm_install_slots ?? 1, created_at: isoAt(t.created_at) });
const SlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 100 }) });
const One = Type.Object({ tenant: TenantSchema });

export function adminTenantRoutes(app: TypedApp, deps: { accounts: AccountsService }) {
  const { accounts } = deps;

  app.post(
    '/admin/v1/tenants',
    {
      config: adminConfig,
      schema: {
        tags,
        body: Type.Object(
          { account_id: Type.String({ minLength: 1 }), slug: Type.String({ minLength: 1, maxLength: 63 }), ...TenantSettings },
          { additionalProperties: false },
        ),
        response: { 201: One },
      },
    },
    async (req, reply) => reply.status(201).send({ tenant: show(await accounts.createTenant(req.body)) }),
  );

  app.get(
    '/admin/v1/tenants',
    { config: adminConfig, schema: { tags, response: { 200: Type.Object({ tenants: Type.Array(TenantSchema) }) } } },
    async () => ({ tenants: (await accounts.listTenants()).map(show) }),
  );

  app.get(
    '/admin/v1/tenants/:slug',
    { config: adminConfig, schema: { tags, params: SlugParams, response: { 200: One } } },
    async (req) => ({ tenant: show(await accounts.getTenant(req.params.slug)) }),
  );

  app.patch(
    '/admin/v1/tenants/:slug',
    {
      config: adminConfig,
      schema: {
        tags,
        summary: 'Change any tenant setting, including status (active | suspended)',
        params: SlugParams,
        body: Type.Object(TenantSettings, { additionalProperties: false }),
        response: { 200: One },
      },
    },
    async (req) => ({ tenant: show(await accounts.updateTenant(req.params.slug, req.body)) }),
  );
}
