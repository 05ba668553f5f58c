/** Shapes shared by several operations: ids, handles, timestamps, the error bodies. */
import { Type, type TSchema } from 'typebox';
import { ERROR_CODES, type ErrorCode } from '../errors/registry.js';
import { PHONE_PUNCTUATION_CLASS } from '../domain/handles.js';

export const DateTime = (description?: string) => Type.String({ format: 'date-time', ...(description && { description }) });
export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** A path id as the routes accept it (the 100-character cap keeps lookups cheap). */
export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

/**
 * A recipient's shape: phone characters (digits, `+`, the punctuation people write numbers with:
 * spaces, `().-` and the dashes documents put for `-`) or an email. The service then normalizes
 * it (E.164, lowercased email) and refuses what is still not one (1003), so this pattern is never
 * stricter than the service, only a guide for generators and a 1003 too.
 */
export const HANDLE_PATTERN = `^\\s*([+0-9${PHONE_PUNCTUATION_CLASS}]+|[^\\s@]+@[^\\s@]+\\.[^\\s@]+)\\s*$`;
// An empty or over-long value is no number or email either: 1003 like any other (not 1002).
export const Handle = (description: string, extra: { minLength?: number; maxLength?: number; examples?: string[]; blankIsMissing?: boolean } = {}) => {
  const { blankIsMissing, ...limits } = extra;
  // blankIsMissing: '' or spaces pass the schema, for the route to answer as a missing field (1001).
  const pattern = blankIsMissing ? `^\\s*$|${HANDLE_PATTERN}` : HANDLE_PATTERN;
  return Type.String({ maxLength: 320, ...limits, pattern, description, [PATTERN_MEANS_KEYWORD]: 'an E.164 number or an Apple ID email', [ERROR_CODES_KEYWORD]: { pattern: 1003, minLength: 1003, maxLength: 1003 } });
};

export const NoQuery = Type.Object({}, { additionalProperties: false });

/**
 * A name people read (an account's, a tenant's): a visible character, no NUL, no lone surrogate
 * (JSON can escape one; stored, it came back as U+FFFD, not what was acknowledged). The pattern
 * means the same with and without a regular expression's `u` flag (a pair is one character or two).
 */
export const DisplayName = () =>
  Type.String({
    minLength: 1,
    maxLength: 200,
    pattern: '^(?=[\\s\\S]*\\S)(?:[^\\u0000\\uD800-\\uDFFF]|[\\uD800-\\uDBFF][\\uDC00-\\uDFFF])*$',
    [PATTERN_MEANS_KEYWORD]: 'text with a visible character, without NUL or a lone surrogate',
  });

/**
 * Where the spec gives a value that fails a schema keyword a code other than 1002, the schema
 * names it: `{ enum: […], 'x-error-codes': { enum: 5003 } }` (read by http/validation.ts; the
 * OpenAPI document shows it too).
 */
export const ERROR_CODES_KEYWORD = 'x-error-codes';

/**
 * What a schema's pattern means, in words, for the message of a value that fails it; without
 * it the description is used, which for some fields also names codes and rules.
 */
export const PATTERN_MEANS_KEYWORD = 'x-pattern-means';

/** The given codes of the registry, as the literal union the wire uses. */
export const codeSchema = (codes: readonly ErrorCode[]) =>
  codes.length === 1 ? Type.Literal(codes[0]!) : Type.Union(codes.map((c) => Type.Literal(c)));

const errorDetails = {
  retry_after: Type.Optional(Type.Integer({ minimum: 0, description: 'seconds; also in Retry-After (1007, 4002, …)' })),
  attachment_index: Type.Optional(Type.Integer({ minimum: 0, description: '0-based entry of attachments[] or parts[] at fault' })),
  allowed_effects: Type.Optional(Type.Array(Type.String(), { description: 'on 4098' })),
  allowed_methods: Type.Optional(Type.Array(Type.String(), { description: 'on 405: the methods the path takes (also in Allow)' })),
  message_id: Type.Optional(
    Type.String({ description: 'the message recorded before the failure: `failed`, or `sending` while the line is asked whether it went out (3002): look it up with GET /api/v1/messages/{id} before sending again' }),
  ),
};

/** The standard error envelope, with the codes one status can carry. */
export function ErrorEnvelope(codes: readonly ErrorCode[] = Object.keys(ERROR_CODES).map(codeOf)) {
  return Type.Object(
    {
      success: Type.Literal(false),
      error: Type.Object({
        status: Type.Integer({ description: 'the HTTP status' }),
        code: codeSchema(codes),
        message: Type.String(),
        retryable: Type.Boolean({ description: 'authoritative: branch on it' }),
        ...errorDetails,
      }),
      trace_id: Type.String(),
    },
    { description: 'Error envelope' },
  );
}

/** POST /send's flat failure shape (spec rule 5): no envelope, no trace_id. */
export function SendFailure(codes: readonly ErrorCode[] = Object.keys(ERROR_CODES).map(codeOf)) {
  return Type.Object(
    {
      status: Type.Literal('failed'),
      error: Type.String({ description: 'short name, e.g. send_failed, lines_saturated, invalid_request' }),
      code: codeSchema(codes),
      reason: Type.String(),
      retryable: Type.Boolean(),
      lead_id: Nullable(Type.String()),
      chat_id: Nullable(Type.String()),
      lead_created: Type.Boolean(),
      convo_id: Nullable(Type.String()),
      phone_line_id: Nullable(Type.String()),
      ...errorDetails,
    },
    { description: 'Flat send failure' },
  );
}

export function codeOf(key: string): ErrorCode {
  return (/^\d+$/.test(key) ? Number(key) : key) as ErrorCode;
}
