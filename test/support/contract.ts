/**
 * Typed requests built from the contract: `call(t, sendMessage, { body })` compiles only
 * with the operation's request shape, returns its response type, and checks every answer
 * (success or error) against the schema the operation declares for that status.
 */
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Body, OperationSpec, Params, Query, Response } from '../../src/contract/operation.js';
import { errorResponses, successResponses } from '../../src/contract/errors.js';
import type { TestApp } from './app.js';

// ajv-formats ships CommonJS; under NodeNext its default import is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
const validators = new WeakMap<object, ReturnType<typeof ajv.compile>>();

type Maybe<K extends string, T> = [T] extends [undefined] ? { [P in K]?: never } : [T] extends [Record<string, never>] ? { [P in K]?: T } : { [P in K]: T };

export type CallInput<O extends OperationSpec> = Maybe<'body', Body<O>> &
  Maybe<'params', Params<O>> &
  Maybe<'query', Query<O>> & {
    /** Bearer secret (default: the demo tenant's); `null` sends no credentials. */
    secret?: string | null;
    tenant?: string;
    headers?: Record<string, string>;
  };

export interface CallResult<O extends OperationSpec> {
  status: number;
  /** The success body, typed by the contract (check `status` first). */
  data: Response<O>;
  /** The body as JSON, whatever the status. */
  json: Record<string, unknown> & { error?: { code: number | string; status: number; message: string; retryable: boolean } };
  res: LightMyRequestResponse;
}

export const pathOf = (op: OperationSpec, params: Record<string, string> = {}) =>
  op.path.replace(/\{([^}]+)\}/g, (_, k: string) => encodeURIComponent(params[k] ?? `missing-${k}`));

/** The schema an operation declares for a status, or undefined when it declares none. */
export function declaredSchema(op: OperationSpec, status: number): object | undefined {
  return successResponses(op)[status] ?? errorResponses(op)[status];
}

/** Throws when a JSON answer does not match what the operation declares for its status. */
export function assertMatchesContract(op: OperationSpec, status: number, body: unknown): void {
  const schema = declaredSchema(op, status);
  if (!schema) throw new Error(`${op.operationId} answered ${status}, which its contract does not declare: ${JSON.stringify(body).slice(0, 300)}`);
  let validate = validators.get(schema);
  if (!validate) validators.set(schema, (validate = ajv.compile(schema)));
  if (!validate(body)) {
    throw new Error(`${op.operationId} ${status} does not match its contract: ${ajv.errorsText(validate.errors)}; body ${JSON.stringify(body).slice(0, 500)}`);
  }
}

export async function call<O extends OperationSpec>(t: TestApp, op: O, input: CallInput<O>): Promise<CallResult<O>> {
  const headers: Record<string, string> = { ...input.headers };
  if (input.secret !== null) headers.authorization = `Bearer ${input.secret ?? t.demo.signing_secret}`;
  if (input.tenant) headers[`x-${t.config.headerBrand}-tenant`] = input.tenant;
  const query = input.query ? `?${new URLSearchParams(input.query as Record<string, string>).toString()}` : '';
  const res = await t.request({
    method: op.method as InjectOptions['method'],
    url: pathOf(op, input.params as Record<string, string> | undefined) + query,
    headers,
    ...(input.body !== undefined && { payload: input.body as object }),
  });
  const isJson = String(res.headers['content-type'] ?? '').includes('application/json');
  const json = isJson && res.body ? res.json() : {};
  if (isJson) assertMatchesContract(op, res.statusCode, json);
  return { status: res.statusCode, data: json as Response<O>, json, res };
}
