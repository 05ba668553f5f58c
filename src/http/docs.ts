/**
 * /openapi.json (built from the contract: src/contract/openapi.ts) and a docs page at /docs.
 */
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { buildOpenApi } from '../contract/openapi.js';
import { operations, webhooks } from '../contract/index.js';

export async function registerDocs(app: FastifyInstance, opts: { brand: string; baseUrl: string }): Promise<void> {
  const document = buildOpenApi(operations, webhooks, opts);
  await app.register(swagger, { mode: 'static', specification: { document: document as never } });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  const body = JSON.stringify(document);
  app.get('/openapi.json', { schema: { hide: true }, config: { auth: 'none' } }, (_req, reply) => {
    void reply.type('application/json; charset=utf-8').send(body);
  });
}
