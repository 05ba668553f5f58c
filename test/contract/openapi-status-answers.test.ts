/**
 * The two answers no operation lists as an error code: a method a path does not take (405, on
 * every path) and a download range outside the file (416, no body). /openapi.json describes each
 * as the service sends it: the 405 once (components.responses, named in info.description), the
 * 416 on the downloads with its Content-Range.
 */
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Resp = { description: string; headers?: Record<string, { $ref?: string; required?: boolean; schema?: Json }>; content?: Record<string, { schema: Json }> };
type Doc = {
  info: { description: string };
  paths: Record<string, Record<string, { responses: Record<string, Resp> }>>;
  components: { schemas: Record<string, Json>; responses?: Record<string, Resp> };
};

describe('405 and 416 in the OpenAPI document', () => {
  let t: TestApp;
  let doc: Doc;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
  });
  afterAll(() => t?.close());

  /** A schema with its #/components/schemas $refs replaced by what they name. */
  const resolved = (node: Json): Json => {
    if (Array.isArray(node)) return node.map(resolved);
    if (!node || typeof node !== 'object') return node;
    const { $ref, ...rest } = node;
    const own = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, resolved(v)]));
    if (typeof $ref !== 'string') return own;
    return { ...(resolved(doc.components.schemas[$ref.replace('#/components/schemas/', '')]!) as object), ...own };
  };

  it('describes the 405 once, as the service answers it on a known path (envelope, 2011, Allow, allowed_methods)', async () => {
    const documented = doc.components.responses?.MethodNotAllowed;
    expect(documented, 'components.responses.MethodNotAllowed').toBeDefined();
    expect(doc.info.description).toContain('#/components/responses/MethodNotAllowed');
    expect(documented!.headers?.Allow).toMatchObject({ required: true, schema: { type: 'string' } });
    // Once: no operation repeats it.
    for (const [p, methods] of Object.entries(doc.paths)) for (const [m, op] of Object.entries(methods)) expect(Object.keys(op.responses), `${m} ${p}`).not.toContain('405');

    const validate = new Ajv({ strict: false, allErrors: true }).compile(resolved(documented!.content!['application/json']!.schema) as object);
    for (const [method, url, allowed] of [
      ['PUT', '/api/v1/phone-numbers', ['GET', 'HEAD']],
      ['DELETE', '/api/v1/send', ['POST']],
      ['POST', '/api/v1/attachments/att_x/content', ['GET', 'HEAD']],
    ] as const) {
      // No credentials: the 405 comes before authentication.
      const res = await t.request({ method, url });
      expect(res.statusCode, `${method} ${url}`).toBe(405);
      const body = res.json();
      expect(validate(body), `${method} ${url}: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect(body.error.allowed_methods).toEqual(allowed);
      expect(res.headers.allow).toBe(allowed.join(', '));
      expect(res.headers['x-trace-id']).toBe(body.trace_id);
    }
  });

  it('describes the 416 of each download (no body, Content-Range with the file\'s length) as the service answers it', async () => {
    for (const p of ['/api/v1/attachments/{id}/content', '/admin/v1/lines/{id}/simulate/content/{file}']) {
      const r = doc.paths[p]!.get!.responses;
      expect(r['416'], p).toBeDefined();
      expect(r['416']!.content, `${p} 416 has no body`).toBeUndefined();
      expect(r['416']!.headers?.['Content-Range'], p).toMatchObject({ required: true, description: 'bytes */<size>' });
      expect(r['206']!.headers?.['Content-Range'], p).toMatchObject({ required: true });
    }
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a4ae0000000049454e44ae426082', 'hex');
    const slot = (await t.api('POST', '/api/v1/attachments', { filename: 'dot.png', content_type: 'image/png', size_bytes: png.length })).json();
    const put = await t.request({ method: 'PUT', url: `/api/v1/attachments/${slot.attachment_id}/upload`, payload: png, headers: { authorization: `Bearer ${t.demo.signing_secret}`, 'content-type': 'image/png' } });
    expect(put.statusCode, put.body).toBe(200);
    const outside = await t.api('GET', `/api/v1/attachments/${slot.attachment_id}/content`, undefined, { headers: { range: `bytes=${png.length}-` } });
    expect(outside.statusCode).toBe(416);
    expect(outside.body).toBe('');
    expect(outside.headers['content-range']).toBe(`bytes */${png.length}`);
    expect(outside.headers['x-trace-id']).toMatch(/^tr_/);
    const part = await t.api('GET', `/api/v1/attachments/${slot.attachment_id}/content`, undefined, { headers: { range: 'bytes=2-4' } });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 2-4/${png.length}`);
  });
});
