/**
 * The Idempotency-Key header as the OpenAPI documents it and the server honours it on
 * POST /api/v1/send and POST /api/v1/chats (decisions.md: the key comes in idempotency_key or
 * the header; both at once must agree, else 1002): an optional string header of 1 to 255
 * characters, like the body field. A repeat with the header answers what the first answered;
 * a header out of those limits or contradicting the body is 400 / 1002.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { FIRST_TOUCH_GAP_MS, newRecipient, prepareSandbox } from '../support/messaging.js';
import { assertMatchesContract } from '../support/contract.js';
import { operations } from '../../src/contract/index.js';

type Parameter = { name: string; in: string; required: boolean; schema: { type?: string; minLength?: number; maxLength?: number } };

const ROUTES = [
  { operationId: 'sendMessage', path: '/api/v1/send', body: (phone: string) => ({ phone, body: 'by header' }) },
  { operationId: 'createChat', path: '/api/v1/chats', body: (phone: string) => ({ to: phone, message: { parts: [{ type: 'text', value: 'by header' }] } }) },
] as const;

describe('the Idempotency-Key header', () => {
  let t: TestApp;
  let doc: { paths: Record<string, Record<string, { parameters?: Parameter[]; requestBody: { content: Record<string, { schema: unknown }> } }>>; components: { schemas: Record<string, unknown> } };
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    await prepareSandbox(t);
    doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
  });
  afterAll(async () => t.close());

  /** The body's idempotency_key schema, its $ref resolved. */
  const bodyKeySchema = (path: string) => {
    let schema = doc.paths[path]!.post!.requestBody.content['application/json']!.schema as { $ref?: string; properties?: Record<string, { minLength?: number; maxLength?: number }> };
    if (schema.$ref) schema = doc.components.schemas[schema.$ref.split('/').pop()!] as typeof schema;
    return schema.properties!.idempotency_key!;
  };

  it.each(ROUTES)('$path declares it: an optional string header with the body field\'s limits', ({ path }) => {
    const header = doc.paths[path]!.post!.parameters?.find((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
    expect(header, `${path} documents the Idempotency-Key header`).toMatchObject({ required: false, schema: { type: 'string' } });
    const key = bodyKeySchema(path);
    expect(header!.schema).toMatchObject({ minLength: key.minLength, maxLength: key.maxLength });
    expect([key.minLength, key.maxLength]).toEqual([1, 255]);
  });

  it.each(ROUTES)('$path honours it: a repeat answers what the first did, a conflict or an over-long key is 1002', async ({ operationId, path, body }) => {
    const op = operations.find((o) => o.operationId === operationId)!;
    const phone = newRecipient();
    const key = `hdr-${operationId}`;
    t.clock.advance(FIRST_TOUCH_GAP_MS + 1_000);
    const first = await t.api('POST', path, body(phone), { headers: { 'idempotency-key': key } });
    expect(first.statusCode, first.body).toBeLessThan(300);
    assertMatchesContract(op, first.statusCode, first.json());
    const again = await t.api('POST', path, body(phone), { headers: { 'Idempotency-Key': key } });
    expect(again.json()).toEqual(first.json());

    const refused = async (headers: Record<string, string>, extra: object = {}) => {
      const res = await t.api('POST', path, { ...body(newRecipient()), ...extra }, { headers });
      expect(res.statusCode, res.body).toBe(400);
      const json = res.json();
      expect(json.error?.code ?? json.code).toBe(1002);
      assertMatchesContract(op, res.statusCode, json);
    };
    await refused({ 'idempotency-key': key }, { idempotency_key: 'another' });
    await refused({ 'idempotency-key': 'k'.repeat(256) });
    // 255 characters is a valid key, as in the body.
    t.clock.advance(FIRST_TOUCH_GAP_MS + 1_000);
    const longest = await t.api('POST', path, body(newRecipient()), { headers: { 'idempotency-key': 'k'.repeat(255) } });
    expect(longest.statusCode, longest.body).toBeLessThan(300);
  });
});
