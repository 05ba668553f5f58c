/**
 * Schema validation. Bodies are strict: no type coercion, unknown fields are
 * rejected (Stripe-style), so a typo is an error rather than a silent no-op.
 * Query strings and params are coerced, since they arrive as text.
 */
import type { FastifyInstance, FastifySchemaValidationError } from 'fastify';
import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { DomainError, type ErrorCode } from '../errors/registry.js';
import { ERROR_CODES_KEYWORD, PATTERN_MEANS_KEYWORD } from '../contract/common.js';

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
    // Errors carry the failing schema, so one can name its own code (ERROR_CODES_KEYWORD).
    verbose: true,
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
export function validationToApiError(errors: FastifySchemaValidationError[], context: string, missingFieldCode: 1001 | 1002 | 1003 = 1001): DomainError {
  const where = PART_NAMES[context] ?? context;
  if (!errors[0]) return new DomainError(1002, `invalid ${where}`);
  const e = unionError(errors);
  const path = (e.instancePath || '').replace(/^\//, '').replace(/\//g, '.');
  const found = fieldError(e, path, where, errors, missingFieldCode);
  const code = declaredCode(errors, e.instancePath);
  // 4098 names what is allowed (spec: allowed_effects): the enum of the schema that refused it.
  const details = code === 4098 ? { ...found.details, allowedEffects: enumAt(errors, e.instancePath) } : found.details;
  const err = code === undefined ? found : new DomainError(code, found.message, details);
  // An error inside one entry of /send's attachments[] names the entry (spec: attachment_index).
  const entry = where === 'body' ? /^attachments\.(\d+)(\.|$)/.exec(path) : null;
  return entry ? new DomainError(err.code, err.message, { ...err.details, attachmentIndex: Number(entry[1]) }) : err;
}

function enumAt(errors: FastifySchemaValidationError[], at: string): string[] | undefined {
  const x = errors.find((x) => x.instancePath === at && x.keyword === 'enum');
  return (x as { parentSchema?: { enum?: string[] } } | undefined)?.parentSchema?.enum;
}

/** The code a failing schema names for the keyword that failed (contract/common.ts: ERROR_CODES_KEYWORD). */
function declaredCode(errors: FastifySchemaValidationError[], at: string): ErrorCode | undefined {
  for (const x of errors) {
    if (x.instancePath !== at) continue;
    const codes = (x as { parentSchema?: Record<string, unknown> }).parentSchema?.[ERROR_CODES_KEYWORD] as Record<string, ErrorCode> | undefined;
    if (codes?.[x.keyword] !== undefined) return codes[x.keyword];
  }
  return undefined;
}

function fieldError(
  e: FastifySchemaValidationError,
  path: string,
  where: string,
  errors: FastifySchemaValidationError[],
  missingFieldCode: 1001 | 1002 | 1003,
): DomainError {
  const alternatives = alternativesAt(errors, e.instancePath);
  if (alternatives) return new DomainError(1002, `${where} field '${path}' must be ${alternatives}`);
  const field = (name: string) => (path ? `${path}.${name}` : name);
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return new DomainError(missingFieldCode, `missing required ${where} field '${field(String(params.missingProperty))}'`);
    case 'additionalProperties':
      return new DomainError(1002, `unknown ${where} field '${field(String(params.additionalProperty))}'`);
    case 'type':
      if (!path && where === 'body') return new DomainError(1002, `request body must be a JSON ${params.type}`);
      return new DomainError(1002, `${where} field '${path}' must be ${params.type}`);
    case 'pattern': {
      // The schema's own words for what the pattern means, rather than the regular expression.
      const schema = (e as { parentSchema?: Record<string, unknown> }).parentSchema;
      const hint = schema?.[PATTERN_MEANS_KEYWORD] ?? schema?.description;
      if (typeof hint === 'string' && path) return new DomainError(1002, `${where} field '${path}' must be ${hint}`);
      return new DomainError(1002, path ? `${where} field '${path}' ${e.message}` : `${where} ${e.message}`);
    }
    default:
      return new DomainError(1002, path ? `${where} field '${path}' ${e.message}` : `${where} ${e.message}`);
  }
}

/**
 * A value that fits no branch of a union (`anyOf`) fails every branch; Ajv lists each branch's
 * error, the first of which ("must be string") may not be the useful one. The branch whose type
 * the value has failed on something deeper (an unknown field, a missing one): report that.
 */
function unionError(errors: FastifySchemaValidationError[]): FastifySchemaValidationError {
  const first = errors[0]!;
  const union = errors.find((x) => x.keyword === 'anyOf' && first.instancePath.startsWith(x.instancePath));
  if (!union) return first;
  const within = errors.filter((x) => x !== union && x.instancePath.startsWith(union.instancePath));
  return within.find((x) => x.keyword !== 'type' && x.keyword !== 'const' && x.keyword !== 'enum') ?? first;
}

/** "one of "a", "b"" or "string or array" when the value at `at` matched none of a union's alternatives. */
function alternativesAt(errors: FastifySchemaValidationError[], at: string): string | undefined {
  const here = errors.filter((x) => x.instancePath === at);
  if (!here.length || !here.every((x) => ['const', 'enum', 'type', 'anyOf'].includes(x.keyword))) return undefined;
  const values = here.flatMap((x) => {
    const p = x.params as { allowedValue?: unknown; allowedValues?: unknown[] };
    return x.keyword === 'const' ? [p.allowedValue] : x.keyword === 'enum' ? (p.allowedValues ?? []) : [];
  });
  const types = [...new Set(here.filter((x) => x.keyword === 'type').map((x) => String((x.params as { type: unknown }).type)))];
  if (values.length) return `one of ${values.map((v) => JSON.stringify(v)).join(', ')}${types.length ? ` (or a ${types.join(' or ')})` : ''}`;
  return types.length > 1 ? types.join(' or ') : undefined;
}
