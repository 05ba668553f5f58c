/**
 * Schema validation. Bodies are strict: no type coercion, unknown fields are
 * rejected (Stripe-style), so a typo is an error rather than a silent no-op.
 * Query strings and params are coerced, since they arrive as text.
 */
import type { FastifyInstance, FastifySchemaValidationError } from 'fastify';
import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { ApiError } from '../errors/registry.js';

// ajv-formats ships CommonJS; under NodeNext its default import is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv,
) => Ajv;

function makeAjv(coerce: boolean): Ajv {
  const opts: Options = {
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
    strict: false,
  };
  return addFormats(new Ajv(opts));
}

export function registerValidation(app: FastifyInstance): void {
  const bodyAjv = makeAjv(false);
  const textAjv = makeAjv(true);
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object),
  );
}

const PART_NAMES: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

/** Ajv's first error → the spec's code: a missing field is 1001, anything else 1002. */
export function validationToApiError(errors: FastifySchemaValidationError[], context: string, missingFieldCode: 1001 | 1002 | 1003 = 1001): ApiError {
  const e = errors[0];
  const where = PART_NAMES[context] ?? context;
  if (!e) return new ApiError(1002, `invalid ${where}`);
  const path = (e.instancePath || '').replace(/^\//, '').replace(/\//g, '.');
  const field = (name: string) => (path ? `${path}.${name}` : name);
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return new ApiError(missingFieldCode, `missing required ${where} field '${field(String(params.missingProperty))}'`);
    case 'additionalProperties':
      return new ApiError(1002, `unknown ${where} field '${field(String(params.additionalProperty))}'`);
    case 'type':
      if (!path && where === 'body') return new ApiError(1002, `request body must be a JSON ${params.type}`);
      return new ApiError(1002, `${where} field '${path}' must be ${params.type}`);
    default:
      return new ApiError(1002, path ? `${where} field '${path}' ${e.message}` : `${where} ${e.message}`);
  }
}
