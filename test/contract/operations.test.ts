/**
 * Checks every operation of the contract runs (unkey's common route tests): without
 * credentials 2012, with wrong ones 2004, malformed JSON 1004 once authenticated; every
 * answer matches the schema the operation declares for its status (see support/contract.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { assertMatchesContract, pathOf } from '../support/contract.js';
import { operations } from '../../src/contract/index.js';
import type { OperationSpec } from '../../src/contract/operation.js';

const checked = operations.filter((o) => o.auth !== 'none');

describe('every operation', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(async () => t.close());

  const send = (op: OperationSpec, headers: Record<string, string>, payload?: string) =>
    t.request({
      method: op.method,
      url: pathOf(op, { id: 'x_unknown' }),
      headers: { ...(payload !== undefined && { 'content-type': 'application/json' }), ...headers },
      ...(payload !== undefined && { payload }),
    });
  const tenantHeader = () => ({ [`x-${t.config.headerBrand}-tenant`]: t.demo.tenant });
  const credentials = (op: OperationSpec, secret?: string) =>
    op.auth === 'admin' ? { authorization: `Bearer ${secret ?? t.adminToken}` } : { authorization: `Bearer ${secret ?? t.demo.signing_secret}`, ...tenantHeader() };

  it.each(checked.map((o) => [o.operationId, o] as const))('%s: no credentials → 2012', async (_id, op) => {
    const res = await send(op, op.auth === 'tenant-header' ? tenantHeader() : {}, op.body ? '{}' : undefined);
    expect(res.statusCode).toBe(401);
    const body = res.json();
    expect(body.error?.code ?? body.code).toBe(2012);
    assertMatchesContract(op, res.statusCode, body);
  });

  it.each(checked.map((o) => [o.operationId, o] as const))('%s: wrong credentials → 2004', async (_id, op) => {
    const res = await send(op, credentials(op, 'sk_wrong_0123456789abcdef'), op.body ? '{}' : undefined);
    expect(res.statusCode).toBe(401);
    const body = res.json();
    expect(body.error?.code ?? body.code).toBe(2004);
    assertMatchesContract(op, res.statusCode, body);
  });

  const withJsonBody = checked.filter((o) => o.body && o.auth !== 'bearer-only');
  it.each(withJsonBody.map((o) => [o.operationId, o] as const))('%s: malformed JSON → 1004 once authenticated', async (_id, op) => {
    const res = await send(op, credentials(op), '{"broken": ');
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.error?.code ?? body.code).toBe(1004);
    assertMatchesContract(op, res.statusCode, body);
  });
});
