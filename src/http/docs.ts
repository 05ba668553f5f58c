/** OpenAPI 3.1 generated from the route schemas, served at /openapi.json, with a docs page at /docs. */
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';

export async function registerDocs(app: FastifyInstance, opts: { brand: string }): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Blueline API',
        version: 'v1',
        description: 'Self-hosted iMessage API gateway. Errors use the envelope {success:false, error:{status, code, message, retryable}, trace_id}.',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'The account signing secret' },
          hmac: {
            type: 'apiKey',
            in: 'header',
            name: `x-${opts.brand}-signature`,
            description: 'v1,<unix seconds>,<hex HMAC-SHA256 of "<ts>.<raw body>" keyed with the signing secret>',
          },
          tenant: { type: 'apiKey', in: 'header', name: `x-${opts.brand}-tenant` },
          admin: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN (operator API only)' },
        },
      },
      security: [{ bearer: [] }, { hmac: [], tenant: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true }, config: { auth: 'none' } }, async () => app.swagger());
}
