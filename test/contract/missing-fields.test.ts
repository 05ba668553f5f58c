/**
 * A request that leaves out a required field gets what the contract documents: for every
 * operation with a JSON body, an empty body `{}` (valid credentials, unknown ids) is answered
 * with a code its OpenAPI lists for that status. Where `{}` lacks a required field, that code is
 * the missing-field code: 1001, but 1003 on POST /chats/{id}/messages and 1002 on edit
 * (decisions.md). The app is its own: `{}` rotates the signing secret (the old one keeps working).
 */
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { assertMatchesContract, pathOf } from '../support/contract.js';
import { operations } from '../../src/contract/index.js';
import { buildOpenApi } from '../../src/contract/openapi.js';
import { webhooks } from '../../src/contract/index.js';
import type { OperationSpec } from '../../src/contract/operation.js';
import { CLIENT_ID, CLIENT_SECRET, PUBLIC_BASE, hubspotHeaders } from '../crm/hubspot/helpers.js';

const HUBSPOT_ENV = { HUBSPOT_CLIENT_ID: CLIENT_ID, HUBSPOT_CLIENT_SECRET: CLIENT_SECRET, PUBLIC_BASE_URL: PUBLIC_BASE };
const withBody = operations.filter((o) => o.body);
const ajv = new Ajv({ strict: false, allErrors: true });
/** Whether `{}` lacks a field the body requires (the server's validation then answers the missing-field code). */
const emptyLacksAField = (op: OperationSpec) => {
  const validate = ajv.compile(op.body as object);
  return !validate({}) && (validate.errors ?? []).some((e) => e.keyword === 'required');
};

type DocOp = { responses: Record<string, { description: string }> };

describe('a missing required field', () => {
  let t: TestApp;
  let doc: { paths: Record<string, Record<string, DocOp>> };
  beforeAll(async () => {
    t = await startTestApp('sqlite', HUBSPOT_ENV);
    doc = buildOpenApi(operations, webhooks, { brand: t.config.headerBrand, baseUrl: 'http://127.0.0.1' }) as unknown as typeof doc;
  });
  afterAll(async () => t.close());

  const urlOf = (op: OperationSpec) => pathOf(op, { id: 'x_unknown', slug: 'x-unknown', portal_id: '62515', lineId: 'x_unknown', token: 'x_unknown' });
  const credentials = (op: OperationSpec, url: string, payload: string): Record<string, string> =>
    op.auth === 'hubspot'
      ? hubspotHeaders(op.method, url, payload)
      : op.auth === 'admin'
        ? { authorization: `Bearer ${t.adminToken}` }
        : op.auth === 'none'
          ? {}
          : { authorization: `Bearer ${t.demo.signing_secret}`, [`x-${t.config.headerBrand}-tenant`]: t.demo.tenant };
  const send = async (op: OperationSpec, payload: string) => {
    const url = urlOf(op);
    const res = await t.request({ method: op.method, url, headers: { 'content-type': 'application/json', ...credentials(op, url, payload) }, payload });
    const body = res.json();
    return { status: res.statusCode, body, code: body.error?.code ?? body.code };
  };
  /**
   * The codes the OpenAPI document gives a status of an operation: its description lists
   * "code: message" (an error status) or "ok:false with code a, b, …" (the HubSpot-facing 200).
   */
  const documented = (op: OperationSpec, status: number): (number | string)[] => {
    const description = doc.paths[op.path]?.[op.method.toLowerCase()]?.responses[String(status)]?.description ?? '';
    const crm = /ok:false with code ([\w, ]+)$/.exec(description);
    const codes = crm ? crm[1]!.split(', ') : (description.match(/\b\d{4}(?=:)|idempotency_collision(?=:)/g) ?? []);
    return codes.map((c) => (/^\d+$/.test(c) ? Number(c) : c));
  };

  it('checks the routes the audit named, and the two that answer it differently', () => {
    const required = withBody.filter(emptyLacksAField).map((o) => `${o.method} ${o.path}`);
    expect(required).toEqual(
      expect.arrayContaining([
        'POST /api/v1/messages/{id}/react',
        'POST /api/v1/attachments',
        'POST /api/v1/webhook-subscriptions',
        'PATCH /api/v1/chats/{id}',
        'POST /admin/v1/accounts',
        'POST /admin/v1/tenants',
        'POST /admin/v1/lines',
        'POST /admin/v1/clock/advance',
        'POST /api/v1/chats/{id}/messages',
        'POST /api/v1/messages/{id}/edit',
      ]),
    );
  });

  it.each(withBody.filter((o) => !o.hidden).map((o) => [`${o.method} ${o.path}`, o] as const))('%s: an empty body is answered with a documented code', async (_key, op) => {
    const { status, body, code } = await send(op, '{}');
    assertMatchesContract(op, status, body);
    if (status >= 400 || (op.auth === 'hubspot' && body.ok === false)) expect(documented(op, status), `${status} ${JSON.stringify(body)}`).toContain(code);
    if (emptyLacksAField(op)) {
      expect(code, JSON.stringify(body)).toBe(op.missingFieldCode ?? 1001);
      expect(body.error?.message ?? body.message ?? body.reason).toMatch(/missing required body field/);
    }
  });

  it('a required field of a nested object is missing too: PATCH /api/v1/settings with a window lacking its end', async () => {
    const op = operations.find((o) => o.operationId === 'updateSettings')!;
    const { status, body, code } = await send(op, JSON.stringify({ sending_window: {} }));
    expect(status).toBe(400);
    expect(code).toBe(1001);
    assertMatchesContract(op, status, body);
    expect(documented(op, 400)).toContain(1001);
  });
});
