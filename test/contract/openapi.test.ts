/**
 * /openapi.json as a new user's off-the-shelf tools see it: Redocly's linter finds no error,
 * and openapi-typescript + openapi-fetch give a client whose requests, answers and errors
 * are concrete types, compiled by tsc.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import openapiTS, { astToString } from 'openapi-typescript';
import { startTestApp, type TestApp } from '../support/app.js';
import { operations } from '../../src/contract/index.js';
import { MessageReceived } from '../../src/contract/webhook-message-received.js';

const run = promisify(execFile);
const bin = (name: string) => path.resolve('node_modules/.bin', name);

describe('the OpenAPI document', () => {
  let t: TestApp;
  let dir: string;
  let doc: {
    paths: Record<string, Record<string, { operationId?: string; summary?: string; tags?: string[]; responses: Record<string, unknown>; security?: unknown[] }>>;
    webhooks: Record<string, { post: { operationId: string; parameters: { name: string; in: string; required: boolean }[]; requestBody: { content: Record<string, { schema: unknown }> }; responses: Record<string, unknown> } }>;
  };
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-openapi-'));
    fs.writeFileSync(path.join(dir, 'openapi.json'), JSON.stringify(doc, null, 2));
  });
  /** A schema with its $refs (#/components/schemas/…, shared shapes) replaced by what they name. */
  const resolved = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(resolved);
    if (!node || typeof node !== 'object') return node;
    const { $ref, ...rest } = node as Record<string, unknown>;
    const own = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, resolved(v)]));
    if (typeof $ref !== 'string') return own;
    const target = (doc as unknown as { components: { schemas: Record<string, unknown> } }).components.schemas[$ref.replace('#/components/schemas/', '')];
    return { ...(resolved(target) as object), ...own };
  };
  afterAll(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('documents every operation of the contract once, with operationId, summary, tags and its errors', () => {
    const documented = Object.entries(doc.paths).flatMap(([p, methods]) => Object.entries(methods).map(([m, op]) => ({ key: `${m.toUpperCase()} ${p}`, op })));
    const ids = documented.map((d) => d.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const o of operations.filter((o) => !o.hidden)) {
      const found = documented.find((d) => d.key === `${o.method} ${o.path}`);
      expect(found, `${o.method} ${o.path}`).toBeDefined();
      expect(found!.op.operationId).toBe(o.operationId);
    }
    for (const { key, op } of documented) {
      expect(op.operationId, key).toBeTruthy();
      expect(op.summary, key).toBeTruthy();
      expect(op.tags?.length, key).toBeGreaterThan(0);
      expect(Object.keys(op.responses).some((s) => s.startsWith('4')), `${key} documents its 4xx answers`).toBe(true);
    }
  });

  it('declares the headers every answer carries: X-Trace-ID on all, Retry-After where retry_after is (1007, 4002)', async () => {
    type Resp = { headers?: Record<string, { $ref?: string; schema?: unknown }>; description?: string };
    const headerOf = (r: Resp, name: string) => {
      const h = r.headers?.[name];
      return h?.$ref ? (doc as unknown as { components: { headers: Record<string, unknown> } }).components.headers[h.$ref.split('/').pop()!] : h;
    };
    for (const [p, methods] of Object.entries(doc.paths)) {
      for (const [m, op] of Object.entries(methods)) {
        for (const [status, r] of Object.entries(op.responses as Record<string, Resp>)) {
          expect(headerOf(r, 'X-Trace-ID'), `${m} ${p} ${status}`).toMatchObject({ schema: { type: 'string' } });
          const retryAfter = /\b(1007|4002):/.test(r.description ?? '');
          expect(Boolean(headerOf(r, 'Retry-After')), `${m} ${p} ${status} Retry-After`).toBe(retryAfter);
        }
      }
    }
    // What the document says is what a real answer carries.
    const refused = await t.api('POST', '/api/v1/send', { phone: 'nope', body: 'x' });
    expect(refused.headers['x-trace-id']).toMatch(/^tr_/);
  });

  it('documents the 408 every route that reads a body can answer (a body that does not arrive in time)', () => {
    const withBody = Object.entries(doc.paths).flatMap(([p, methods]) =>
      Object.entries(methods).filter(([, op]) => (op as { requestBody?: unknown }).requestBody).map(([m, op]) => ({ key: `${m.toUpperCase()} ${p}`, op })),
    );
    expect(withBody.map((d) => d.key)).toContain('PUT /api/v1/attachments/{id}/upload');
    // The HubSpot-facing routes answer it inside their 200 (their failures are HTTP 200).
    for (const { key, op } of withBody.filter((d) => !d.key.includes('/crm/hubspot/'))) expect(Object.keys(op.responses), key).toContain('408');
  });

  it('documents the message.received webhook: the contract\'s envelope, its delivery headers and what answers mean', () => {
    const post = doc.webhooks['message.received']!.post;
    expect(post.operationId).toBe('messageReceived');
    expect(resolved(post.requestBody.content['application/json']!.schema)).toEqual(JSON.parse(JSON.stringify(MessageReceived)));
    expect(post.parameters.filter((p) => p.in === 'header' && p.required).map((p) => p.name)).toEqual(
      expect.arrayContaining(['X-Webhook-Event', 'X-Webhook-Event-Id', 'X-Webhook-Timestamp', 'X-Webhook-Subscription-Id', 'X-Webhook-Signature', `x-${t.config.headerBrand}-signature`]),
    );
    expect(Object.keys(post.responses)).toEqual(['2XX', '4XX', '5XX']);
  });

  it('admin operations use the admin token, tenant operations the tenant schemes, HubSpot\'s calls its signature', () => {
    for (const [p, methods] of Object.entries(doc.paths)) {
      for (const op of Object.values(methods)) {
        if (p.startsWith('/admin/v1')) expect(op.security, p).toEqual([{ admin: [] }]);
        else if (p.startsWith('/api/v1')) expect(JSON.stringify(op.security), p).not.toContain('admin');
      }
    }
    const security = (p: string, m = 'get') => doc.paths[p]![m]!.security;
    const v3 = { hubspotSignatureV3: [], hubspotRequestTimestamp: [] };
    expect(security('/crm/hubspot/card')).toEqual([v3]);
    expect(security('/crm/hubspot/card/send', 'post')).toEqual([v3]);
    expect(security('/crm/hubspot/workflow/send', 'post')).toEqual([v3, { hubspotSignatureV2: [] }]);
    expect(security('/crm/hubspot/webhook', 'post')).toEqual([v3, { hubspotSignatureV1: [] }]);
    // The browser coming back from HubSpot's consent screen carries no credentials.
    expect(security('/crm/hubspot/oauth/callback')).toEqual([]);
    expect(security('/api/v1/integrations/hubspot')).toEqual(security('/api/v1/phone-numbers'));
  });

  it('documents the HubSpot-facing failures: ok:false inside the 200, a refused signature 401, not configured 404; the callback\'s HTML page', () => {
    const card = doc.paths['/crm/hubspot/card']!.get!.responses as Record<string, { content: Record<string, { schema: { anyOf?: { properties: Record<string, { const?: unknown }> }[] } }> }>;
    const alternatives = card['200']!.content['application/json']!.schema.anyOf!;
    expect(alternatives.map((a) => a.properties.ok!.const)).toEqual([true, false]);
    expect(JSON.stringify(resolved(card['401']!.content['application/json']!.schema))).toContain('"ok"');
    expect(JSON.stringify(resolved(card['404']!.content['application/json']!.schema))).toContain('"success"');
    const callback = doc.paths['/crm/hubspot/oauth/callback']!.get!.responses as Record<string, { content: Record<string, unknown> }>;
    expect(Object.keys(callback['200']!.content)).toEqual(['text/html']);
    expect(JSON.stringify(callback['400'])).toContain('2014');
  });

  it('documents a download as any media type: the real answer carries the file\'s own Content-Type (200 and 206)', async () => {
    // Whether a media range of the document ("*/*", "image/*", "image/png") covers an answer's Content-Type.
    const covers = (range: string, type: string) => {
      const [rt, rs] = range.split('/');
      const [tt, ts] = type.split(';')[0]!.trim().toLowerCase().split('/');
      return (rt === '*' || rt === tt) && (rs === '*' || rs === ts);
    };
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a4ae0000000049454e44ae426082', 'hex');
    const slot = (await t.api('POST', '/api/v1/attachments', { filename: 'dot.png', content_type: 'image/png', size_bytes: png.length })).json();
    const put = await t.request({ method: 'PUT', url: `/api/v1/attachments/${slot.attachment_id}/upload`, payload: png, headers: { authorization: `Bearer ${t.demo.signing_secret}`, 'content-type': 'image/png' } });
    expect(put.statusCode, put.body).toBe(200);
    const documented = doc.paths['/api/v1/attachments/{id}/content']!.get!.responses as Record<string, { content?: Record<string, { schema: unknown }> }>;
    for (const [status, headers] of [[200, {}], [206, { range: 'bytes=0-9' }]] as const) {
      const res = await t.api('GET', `/api/v1/attachments/${slot.attachment_id}/content`, undefined, { headers });
      expect(res.statusCode).toBe(status);
      expect(res.headers['content-type']).toMatch(/^image\/png/);
      const ranges = Object.keys(documented[String(status)]?.content ?? {});
      expect(ranges.some((r) => covers(r, String(res.headers['content-type']))), `${status} ${res.headers['content-type']} within ${ranges.join(', ')}`).toBe(true);
      for (const r of ranges) expect(documented[String(status)]!.content![r]!.schema).toEqual({ type: 'string', format: 'binary' });
    }
  });

  it('passes @redocly/cli lint with no errors', async () => {
    const file = path.join(dir, 'openapi.json');
    const out = await run(bin('redocly'), ['lint', file, '--format=json'], { maxBuffer: 32 * 1024 * 1024 }).catch((e: { stdout: string; stderr: string }) => e);
    const report = JSON.parse(out.stdout) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[] };
    const errors = report.problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(errors).toEqual([]);
  }, 120_000);

  it('gives openapi-typescript concrete types: a client reads /send success and flat failure without a cast', async () => {
    const ast = await openapiTS(JSON.parse(fs.readFileSync(path.join(dir, 'openapi.json'), 'utf8')));
    fs.writeFileSync(path.join(dir, 'schema.d.ts'), astToString(ast));
    fs.writeFileSync(
      path.join(dir, 'client.ts'),
      `import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:8787' });

export async function send(): Promise<string> {
  const { data, error } = await client.POST('/api/v1/send', {
    body: { phone: '+14155550100', body: 'hello', idempotency_key: 'k-1', effect: 'confetti' },
  });
  if (data) {
    const status: 'sent' = data.status;
    const id: string = data.message_id;
    const created: boolean = data.lead_created;
    return status + id + String(created);
  }
  const failed: 'failed' = error.status;
  const code: number | string = error.code;
  const retryable: boolean = error.retryable;
  const reason: string = error.reason;
  const lead: string | null = error.lead_id;
  return failed + String(code) + String(retryable) + reason + String(lead);
}

export async function envelopeErrors(): Promise<string> {
  const { data, error } = await client.GET('/api/v1/phone-numbers');
  if (data) return data.phone_numbers.map((l) => l.phone_number + l.capabilities.join(',')).join(';');
  const code: number | string = error.error.code;
  const traceId: string = error.trace_id;
  return String(code) + traceId;
}

export async function replay(): Promise<string> {
  const { data, error } = await client.POST('/api/v1/events/{id}/replay', { params: { path: { id: 'evt_1' } } });
  if (data) return String(data.ok) + String(data.downstream_status) + data.message;
  return String(error);
}

export async function hubspotWorkflow(): Promise<string> {
  const { data, error } = await client.POST('/crm/hubspot/workflow/send', {
    body: { callbackId: 'cb-1', origin: { portalId: 62515 }, object: { objectId: 1 } },
  });
  if (data) {
    if (data.ok && 'held' in data) return data.outputFields.hs_execution_state + data.outputFields.hs_expiration_duration;
    if (data.ok) return data.outputFields.hs_execution_state + data.message_id;
    const state: 'FAIL_CONTINUE' = data.outputFields.hs_execution_state;
    return state + String(data.code) + String(data.retryable);
  }
  return 'ok' in error ? String(error.code) : String(error.error.code);
}

// The upload's body is documented (raw bytes of the declared type), not undefined.
type UploadContent = NonNullable<paths['/api/v1/attachments/{id}/upload']['put']['requestBody']>['content'];
type Assert<T extends true> = T;
export type UploadBodyIsTyped = Assert<[keyof UploadContent] extends [never] ? false : true>;
`,
    );
    fs.writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, typeRoots: [], types: [], baseUrl: '.', paths: { 'openapi-fetch': [path.resolve('node_modules/openapi-fetch')] } },
        files: ['client.ts', 'schema.d.ts'],
      }),
    );
    const result = await run(bin('tsc'), ['-p', path.join(dir, 'tsconfig.json')]).then(
      () => '',
      (e: { stdout: string }) => e.stdout,
    );
    expect(result).toBe('');
    // Every request body and 200 answer is a concrete type, never unknown.
    const schema = fs.readFileSync(path.join(dir, 'schema.d.ts'), 'utf8');
    expect(schema).not.toMatch(/"application\/json": unknown/);
  }, 120_000);
});
