/**
 * Typed errors. Every failure the API answers becomes a `BlueLineError` of its family, whether
 * it came as the standard envelope, /send's flat failure or the replay's `ok: false` shape, so
 * callers branch on one class hierarchy (`instanceof RateLimitError`) or on `code`.
 */
import { ERROR_CODES, type ErrorCode } from './generated/codes.js';
import { brand, stamp } from './brand.js';

export type { ErrorCode };

export type ErrorFamily =
  | 'validation'
  | 'authentication'
  | 'permission'
  | 'not_found'
  | 'rate_limit'
  | 'line_unavailable'
  | 'delivery_failed'
  | 'unsupported'
  | 'internal';

/** Every code's family: a code added to the registry fails the SDK's build until placed here. */
const FAMILY: Record<ErrorCode, ErrorFamily> = {
  1001: 'validation', 1002: 'validation', 1003: 'validation', 1004: 'validation', 1005: 'validation',
  1006: 'validation', 1007: 'rate_limit', 1008: 'validation', 1009: 'validation', 1010: 'validation',
  1011: 'validation', 1012: 'validation', 1013: 'validation',
  2001: 'not_found', 2002: 'not_found', 2003: 'not_found', 2004: 'authentication', 2005: 'permission',
  2006: 'validation', 2007: 'permission', 2008: 'permission', 2010: 'permission', 2011: 'not_found',
  2012: 'authentication', 2013: 'authentication', 2014: 'validation',
  3001: 'internal', 3002: 'line_unavailable', 3003: 'line_unavailable', 3004: 'delivery_failed',
  4001: 'delivery_failed', 4002: 'line_unavailable', 4098: 'validation', 4099: 'unsupported',
  5001: 'not_found', 5002: 'validation', 5003: 'validation', 5004: 'validation',
  idempotency_collision: 'validation',
};

export interface BlueLineErrorInit {
  status: number;
  code: ErrorCode;
  message: string;
  retryable: boolean;
  traceId?: string | null;
  retryAfter?: number | null;
  attachmentIndex?: number | null;
  allowedEffects?: string[] | null;
  allowedMethods?: string[] | null;
  messageId?: string | null;
  /** /send's flat failure: its short error name and the recipient's ids when known. */
  error?: string | null;
  send?: SendFailureIds | null;
  /** The replay's failure: what the destination answered. */
  downstreamStatus?: number | null;
  /** The parsed response body, as sent. */
  body?: unknown;
}

export interface SendFailureIds {
  leadId: string | null;
  chatId: string | null;
  leadCreated: boolean;
  convoId: string | null;
  phoneLineId: string | null;
  /** The message the send recorded before it failed (a final failure, or 3002 while the line is
   * asked whether it went out): look it up with `messages.get` before sending again. */
  messageId: string | null;
}

export class BlueLineError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  /** Authoritative: whether repeating the same request can succeed. */
  readonly retryable: boolean;
  readonly traceId: string | null;
  /** Seconds to wait before retrying (1007, 4002, …), from `retry_after` or `Retry-After`. */
  readonly retryAfter: number | null;
  readonly attachmentIndex: number | null;
  readonly allowedEffects: string[] | null;
  /** 405 (code 2011, a method the path does not take): the methods it takes, as in `Allow`. */
  readonly allowedMethods: string[] | null;
  /** The message recorded before the failure (3002 while the line is asked, a final 4001): check it with `messages.get` before sending again. */
  readonly messageId: string | null;
  readonly error: string | null;
  readonly send: SendFailureIds | null;
  readonly downstreamStatus: number | null;
  readonly body: unknown;
  readonly family: ErrorFamily;

  constructor(init: BlueLineErrorInit) {
    super(init.message);
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.retryable = init.retryable;
    this.traceId = init.traceId ?? null;
    this.retryAfter = init.retryAfter ?? null;
    this.attachmentIndex = init.attachmentIndex ?? null;
    this.allowedEffects = init.allowedEffects ?? null;
    this.allowedMethods = init.allowedMethods ?? null;
    this.messageId = init.messageId ?? null;
    this.error = init.error ?? null;
    this.send = init.send ?? null;
    this.downstreamStatus = init.downstreamStatus ?? null;
    this.body = init.body;
    this.family = familyOf(init.code);
    stamp(this, new.target);
  }
}

/** 1xxx request problems (and 2006, 4098, 5002–5004): fix the request. */
export class ValidationError extends BlueLineError {}
/** The same idempotency key with another recipient, body or voice note (422). */
export class IdempotencyCollisionError extends ValidationError {}
/** 2004, 2012, 2013: missing or wrong credentials, or a signature outside the window. */
export class AuthenticationError extends BlueLineError {}
/** 2005, 2007, 2008, 2010: authenticated but not allowed. */
export class PermissionError extends BlueLineError {}
/** 2001, 2002, 2003, 2011, 5001. */
export class NotFoundError extends BlueLineError {}
/** 1007: honour `retryAfter`. */
export class RateLimitError extends BlueLineError {}
/** 3002, 3003, 4002: no line can take it now (4002 carries `retryAfter`). */
export class LineUnavailableError extends BlueLineError {}
/** 4001, 3004: the line or the device refused or failed it. */
export class DeliveryFailedError extends BlueLineError {}
/** 4099: the feature is not available here (voice notes, edits, a group without its line). */
export class UnsupportedError extends BlueLineError {}
/** 3001. */
export class InternalServerError extends BlueLineError {}

/** No HTTP answer arrived (network error, timeout): `ambiguous` when the request may have been processed. */
export class BlueLineConnectionError extends Error {
  constructor(
    message: string,
    readonly ambiguous: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'BlueLineConnectionError';
    stamp(this, new.target);
  }
}

/** An answer that is none of the API's shapes (a proxy's HTML page, a truncated body). */
export class UnexpectedResponseError extends Error {
  constructor(
    readonly status: number,
    readonly bodyText: string,
    readonly traceId: string | null,
  ) {
    super(`unexpected HTTP ${status} answer${bodyText ? `: ${bodyText.slice(0, 200)}` : ''}`);
    this.name = 'UnexpectedResponseError';
    stamp(this, new.target);
  }
}

/**
 * 416: the `range` asked of a download lies outside the file. The API answers it without a body
 * (so without an error code: the spec gives none), with the file's length in `Content-Range`
 * (`bytes *` and `/<size>`): `size` is that length, to ask again within it.
 */
export class RangeNotSatisfiableError extends Error {
  readonly status = 416;
  constructor(
    /** The Range header that was sent. */
    readonly range: string | null,
    /** The file's length in bytes, from Content-Range (null when the answer had none). */
    readonly size: number | null,
    readonly traceId: string | null,
  ) {
    super(`the range ${range ?? '(none)'} lies outside the file${size === null ? '' : ` of ${size} bytes`}`);
    this.name = 'RangeNotSatisfiableError';
    stamp(this, new.target);
  }
}

/** A 416 of the API (no body; the length in Content-Range) as its typed error. */
export function rangeNotSatisfiable(range: string | null, contentRange: string | null, traceId: string | null): RangeNotSatisfiableError {
  const size = /^bytes\s+\*\/(\d+)\s*$/i.exec(contentRange ?? '')?.[1];
  return new RangeNotSatisfiableError(range, size === undefined ? null : Number(size), traceId);
}

const BRANDED: [abstract new (...args: never[]) => object, string][] = [
  [BlueLineError, 'BlueLineError'],
  [ValidationError, 'ValidationError'],
  [IdempotencyCollisionError, 'IdempotencyCollisionError'],
  [AuthenticationError, 'AuthenticationError'],
  [PermissionError, 'PermissionError'],
  [NotFoundError, 'NotFoundError'],
  [RateLimitError, 'RateLimitError'],
  [LineUnavailableError, 'LineUnavailableError'],
  [DeliveryFailedError, 'DeliveryFailedError'],
  [UnsupportedError, 'UnsupportedError'],
  [InternalServerError, 'InternalServerError'],
  [BlueLineConnectionError, 'BlueLineConnectionError'],
  [UnexpectedResponseError, 'UnexpectedResponseError'],
  [RangeNotSatisfiableError, 'RangeNotSatisfiableError'],
];
for (const [cls, name] of BRANDED) brand(cls, name);

const CLASSES: Record<ErrorFamily, typeof BlueLineError> = {
  validation: ValidationError,
  authentication: AuthenticationError,
  permission: PermissionError,
  not_found: NotFoundError,
  rate_limit: RateLimitError,
  line_unavailable: LineUnavailableError,
  delivery_failed: DeliveryFailedError,
  unsupported: UnsupportedError,
  internal: InternalServerError,
};

export function familyOf(code: ErrorCode): ErrorFamily {
  return FAMILY[code] ?? 'internal';
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return (typeof value === 'number' || typeof value === 'string') && Object.hasOwn(ERROR_CODES, value);
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown) => (typeof v === 'string' ? v : null);
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * The error of a non-2xx answer, or null when the body is none of the API's error shapes.
 * `retryAfterHeader` is the `Retry-After` header in seconds (used when the body has none).
 */
export function errorFromBody(status: number, body: unknown, traceIdHeader: string | null, retryAfterHeader: number | null): BlueLineError | null {
  if (!isObj(body)) return null;
  let init: BlueLineErrorInit | null = null;
  if (body.success === false && isObj(body.error) && isErrorCode(body.error.code)) {
    const e = body.error;
    init = {
      status: num(e.status) ?? status,
      code: e.code as ErrorCode,
      message: str(e.message) ?? '',
      retryable: typeof e.retryable === 'boolean' ? e.retryable : ERROR_CODES[e.code as ErrorCode].retryable,
      traceId: str(body.trace_id) ?? traceIdHeader,
      retryAfter: num(e.retry_after) ?? retryAfterHeader,
      attachmentIndex: num(e.attachment_index),
      allowedEffects: Array.isArray(e.allowed_effects) ? e.allowed_effects.filter((x): x is string => typeof x === 'string') : null,
      allowedMethods: Array.isArray(e.allowed_methods) ? e.allowed_methods.filter((x): x is string => typeof x === 'string') : null,
      messageId: str(e.message_id),
      body,
    };
  } else if (body.status === 'failed' && isErrorCode(body.code)) {
    // /send's flat failure (spec rule 5): no envelope and no trace_id in the body.
    init = {
      status,
      code: body.code,
      message: str(body.reason) ?? str(body.message) ?? str(body.error) ?? '',
      retryable: typeof body.retryable === 'boolean' ? body.retryable : ERROR_CODES[body.code].retryable,
      traceId: traceIdHeader,
      retryAfter: num(body.retry_after) ?? retryAfterHeader,
      attachmentIndex: num(body.attachment_index),
      allowedEffects: Array.isArray(body.allowed_effects) ? body.allowed_effects.filter((x): x is string => typeof x === 'string') : null,
      messageId: str(body.message_id),
      error: str(body.error),
      send: {
        leadId: str(body.lead_id),
        chatId: str(body.chat_id),
        leadCreated: body.lead_created === true,
        convoId: str(body.convo_id),
        phoneLineId: str(body.phone_line_id),
        messageId: str(body.message_id),
      },
      body,
    };
  } else if (body.ok === false && isErrorCode(body.code)) {
    // The replay's failure shape.
    init = {
      status,
      code: body.code,
      message: str(body.message) ?? str(body.error) ?? '',
      retryable: body.retryable === true,
      traceId: str(body.trace_id) ?? traceIdHeader,
      retryAfter: retryAfterHeader,
      error: str(body.error),
      downstreamStatus: num(body.downstream_status),
      body,
    };
  }
  if (!init) return null;
  const Class = init.code === 'idempotency_collision' ? IdempotencyCollisionError : CLASSES[familyOf(init.code)];
  return new Class(init);
}
