import { Type } from 'typebox';
import type { TypedApp } from '../../typed.js';
import { LINE_CAPABILITIES, adminPhoneLine, type LinesService } from '../../../domain/lines/service.js';
import { AdminPhoneLineSchema } from './schemas.js';

const adminConfig = { auth: 'admin' as const };
const tags = ['admin'];
const One = Type.Object({ phone_line: AdminPhoneLineSchema });
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const LineFields = {
  driver: Type.String({ description: 'simulator | bluebubbles' }),
  driver_config: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  capabilities: Type.Optional(
    Type.Array(Type.Union(LINE_CAPABILITIES.map((c) => Type.Literal(c))), { maxItems: 20, description: 'without `send`, nothing goes out from the line' }),
  ),
  is_active: Type.Optional(Type.Boolean()),
};

export function adminLineRoutes(app: TypedApp, deps: { lines: LinesService }) {
  const { lines } = deps;

  app.post(
    '/admin/v1/lines',
    {
      config: adminConfig,
      schema: {
        tags,
        body: Type.Object(
          { tenant: Type.String({ minLength: 1 }), phone_number: Type.String({ minLength: 1, maxLength: 32 }), ...LineFields },
          { additionalProperties: false },
        ),
        response: { 201: One },
      },
    },
    async (req, reply) => {
      const { line, tenant } = await lines.create(req.body);
      return reply.status(201).send({ phone_line: adminPhoneLine(line, tenant.slug) });
    },
  );

  app.get(
    '/admin/v1/lines',
    {
      config: adminConfig,
      schema: { tags, response: { 200: Type.Object({ phone_lines: Type.Array(AdminPhoneLineSchema) }) } },
    },
    async () => ({
      phone_lines: (await lines.listWithTenants()).map(({ line, tenantSlug }) => adminPhoneLine(line, tenantSlug)),
    }),
  );

  app.patch(
    '/admin/v1/lines/:id',
    {
      config: adminConfig,
      schema: {
        tags,
        params: IdParams,
        body: Type.Object(
          { tenant: Type.Optional(Type.String({ minLength: 1 })), ...LineFields, driver: Type.Optional(LineFields.driver) },
          { additionalProperties: false },
        ),
        response: { 200: One },
      },
    },
    async (req) => {
      const { line, tenant } = await lines.update(req.params.id, req.body);
      return { phone_line: adminPhoneLine(line, tenant.slug) };
    },
  );
}
