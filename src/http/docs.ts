/**
 * /openapi.json (built from the contract: src/contract/openapi.ts) and a docs page at /docs.
 */
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { buildOpenApi } from '../contract/openapi.js';
import { operations, webhooks } from '../contract/index.js';

/**
 * The document's JSON by brand and base URL. The contract is fixed for the process and naming its
 * shared shapes takes ~80 ms, so each app built in the process (every test builds many) reuses it.
 */
const built = new Map<string, string>();

function openApiJson(opts: { brand: string; baseUrl: string }): string {
  const key = `${opts.brand}\n${opts.baseUrl}`;
  let body = built.get(key);
  if (body === undefined) built.set(key, (body = JSON.stringify(buildOpenApi(operations, webhooks, opts))));
  return body;
}

export async function registerDocs(app: FastifyInstance, opts: { brand: string; baseUrl: string }): Promise<void> {
  const body = openApiJson(opts);
  // A copy of its own for the docs page's plugin, which may decorate what it is given.
  await app.register(swagger, { mode: 'static', specification: { document: JSON.parse(body) as never } });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true }, config: { auth: 'none' } }, (_req, reply) => {
    void reply.type('application/json; charset=utf-8').send(body);
  });
}
