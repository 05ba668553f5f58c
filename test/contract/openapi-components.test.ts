/**
 * The OpenAPI document names the shared shapes (components.schemas + $ref), so generated
 * clients get `Message`, `Chat`, `Event`…, while every schema, resolved, is still exactly the
 * contract's: the wire shapes do not change by being named.
 */
import { describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../src/contract/openapi.js';
import { operations, webhooks } from '../../src/contract/index.js';
import { errorResponses, successResponses } from '../../src/contract/errors.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Doc = {
  paths: Record<string, Record<string, { parameters?: { name: string; in: string; schema: Json }[]; requestBody?: { content: Record<string, { schema: Json }> }; responses: Record<string, { content?: Record<string, { schema: Json }> }> }>>;
  webhooks: Record<string, { post: { requestBody: { content: Record<string, { schema: Json }> } } }>;
  components: { schemas?: Record<string, Json>; headers: Record<string, Json> };
};

const doc = JSON.parse(JSON.stringify(buildOpenApi(operations, webhooks, { brand: 'blueline', baseUrl: 'http://127.0.0.1:8787' }))) as Doc;
const plain = (s: unknown) => JSON.parse(JSON.stringify(s)) as Json;

function target(ref: string): Json {
  expect(ref.startsWith('#/'), ref).toBe(true);
  let node: Json = doc as unknown as Json;
  for (const part of ref.slice(2).split('/')) {
    node = node && typeof node === 'object' && !Array.isArray(node) ? (node[part] ?? null) : null;
  }
  expect(node, `${ref} resolves`).not.toBeNull();
  return node;
}

/** A schema with every $ref replaced by what it points to (a sibling description wins, as OpenAPI 3.1 reads it). */
function resolve(node: Json): Json {
  if (Array.isArray(node)) return node.map(resolve);
  if (!node || typeof node !== 'object') return node;
  const { $ref, ...rest } = node;
  const own = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, resolve(v)]));
  if (typeof $ref !== 'string') return own;
  return { ...(resolve(target($ref)) as Record<string, Json>), ...own };
}

function refsIn(node: Json, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => refsIn(n, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refsIn(v, out);
    }
  }
  return out;
}

describe('the OpenAPI document names the shared shapes', () => {
  it('has components.schemas for the main resources, referenced from the operations and webhooks', () => {
    const schemas = doc.components.schemas ?? {};
    const used = new Set(refsIn({ paths: doc.paths, webhooks: doc.webhooks } as unknown as Json));
    for (const name of ['Message', 'MessageWithReactions', 'MessagePart', 'Chat', 'Event', 'Attachment', 'WebhookSubscription', 'MessageReceived', 'Account', 'Tenant', 'PhoneLine', 'AdminPhoneLine', 'HubSpotInstall']) {
      expect(schemas[name], name).toBeDefined();
      // Used directly or from inside another component.
      const referenced = used.has(`#/components/schemas/${name}`) || refsIn(schemas as Json).includes(`#/components/schemas/${name}`);
      expect(referenced, `${name} is referenced`).toBe(true);
    }
    // The catch-all error bodies, for a client's error type; the shared per-status ones by their codes.
    expect(schemas.ErrorEnvelope).toBeDefined();
    expect(schemas.ErrorEnvelope_3001).toBeDefined();
    // Where getMessage answers a message, it is by name.
    const getMessage = doc.paths['/api/v1/messages/{id}']!.get!;
    const answer = getMessage.responses['200']!.content!['application/json']!.schema as { properties: Record<string, Json> };
    expect(answer.properties.message).toEqual({ $ref: '#/components/schemas/MessageWithReactions' });
  });

  it('resolves every $ref', () => {
    const refs = refsIn(doc as unknown as Json);
    expect(refs.length).toBeGreaterThan(100);
    for (const ref of new Set(refs)) target(ref);
  });

  it('gives back, through the $refs, exactly the schemas of the contract (answers, errors, bodies, parameters, webhooks)', () => {
    let compared = 0;
    for (const op of operations.filter((o) => !o.hidden)) {
      const documented = doc.paths[op.path]![op.method.toLowerCase()]!;
      const expected = { ...successResponses(op), ...errorResponses(op) };
      for (const [status, schema] of Object.entries(expected)) {
        expect(resolve(documented.responses[status]!.content!['application/json']!.schema), `${op.operationId} ${status}`).toEqual(plain(schema));
        compared++;
      }
      if (op.body) expect(resolve(documented.requestBody!.content['application/json']!.schema), `${op.operationId} body`).toEqual(plain(op.body));
      for (const p of documented.parameters ?? []) {
        const from = { path: op.params, query: op.query, header: op.headers }[p.in] as { properties: Record<string, unknown> };
        expect(resolve(p.schema), `${op.operationId} ${p.in} ${p.name}`).toEqual(plain(from.properties[p.name]));
      }
    }
    for (const w of webhooks) expect(resolve(doc.webhooks[w.event]!.post.requestBody.content['application/json']!.schema)).toEqual(plain(w.body));
    expect(compared).toBeGreaterThan(400);
  });

  it('adds no $id (ajv would treat it as a schema identity) and stays small', () => {
    expect(JSON.stringify(doc)).not.toContain('"$id"');
    // Inline, every shape was repeated: about 800 KB. Named, well under half of it.
    expect(JSON.stringify(doc).length).toBeLessThan(400_000);
  });
});
