/**
 * The one table of every error code in the spec: HTTP status, whether a retry
 * can help, and a default message. The domain throws `DomainError(code)`; the error
 * plugin turns it into the standard envelope (or a route's flat shape).
 */
export const ERROR_CODES = {
  1001: { http: 400, retryable: false, message: 'Missing required field' },
  1002: { http: 400, retryable: false, message: 'Invalid field value' },
  1003: { http: 400, retryable: false, message: 'Invalid phone number (E.164 expected)' },
  1004: { http: 400, retryable: false, message: 'Invalid JSON' },
  1005: { http: 400, retryable: false, message: 'First message in a new chat cannot contain URLs' },
  1006: { http: 400, retryable: false, message: 'Too many parts (maximum 10)' },
  1007: { http: 429, retryable: true, message: 'Rate limited' },
  1008: { http: 400, retryable: false, message: 'Consecutive text parts' },
  1009: { http: 400, retryable: false, message: 'Text too long' },
  1010: { http: 400, retryable: false, message: 'Unsupported messaging service' },
  1011: { http: 409, retryable: false, message: 'Resource kind mismatch' },
  1012: { http: 409, retryable: false, message: 'Resource state invalid' },
  1013: { http: 409, retryable: false, message: 'Contact has no usable phone number' },
  2001: { http: 404, retryable: false, message: 'Tenant not found' },
  2002: { http: 404, retryable: false, message: 'Chat not found' },
  2003: { http: 404, retryable: false, message: 'Message not found' },
  2004: { http: 401, retryable: false, message: 'Invalid auth' },
  2005: { http: 403, retryable: false, message: 'Forbidden' },
  2006: { http: 400, retryable: false, message: 'Phone number not assigned to tenant' },
  2007: { http: 403, retryable: false, message: 'Email not verified' },
  2008: { http: 402, retryable: false, message: 'Account limit reached' },
  2010: { http: 403, retryable: false, message: 'Integration not connected' },
  2011: { http: 404, retryable: false, message: 'Resource not found' },
  2012: { http: 401, retryable: false, message: 'Auth missing' },
  2013: { http: 401, retryable: false, message: 'Auth timestamp outside the allowed skew' },
  2014: { http: 400, retryable: false, message: 'OAuth state invalid' },
  3001: { http: 500, retryable: true, message: 'Internal error' },
  3002: { http: 503, retryable: true, message: 'Delivery unavailable' },
  3003: { http: 503, retryable: false, message: 'Delivery service not configured' },
  3004: { http: 502, retryable: true, message: 'Delivery service error' },
  4001: { http: 502, retryable: true, message: 'Delivery failed downstream' },
  4002: { http: 503, retryable: true, message: 'All phone lines saturated for this recipient' },
  4098: { http: 400, retryable: false, message: 'Unknown effect' },
  4099: { http: 501, retryable: false, message: 'Feature unsupported in this context' },
  5001: { http: 404, retryable: false, message: 'Attachment or voice note not found' },
  5002: { http: 400, retryable: false, message: 'Attachment too large' },
  5003: { http: 400, retryable: false, message: 'Unsupported MIME type' },
  5004: { http: 400, retryable: false, message: 'Attachment not yet uploaded' },
  // The one string code (legacy, kept for compatibility): same idempotency key, different request.
  idempotency_collision: { http: 422, retryable: false, message: 'Idempotency key reused with a different request' },
} as const satisfies Record<number | string, { http: number; retryable: boolean; message: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;
export type NumericErrorCode = Extract<ErrorCode, number>;

/**
 * Where the spec gives one code more than one HTTP status, the domain names the case and the
 * HTTP layer looks the status up here: no HTTP status is ever chosen in `domain/`.
 */
export const VARIANT_STATUS = {
  /** 1011 on voice-note exclusivity (spec: 409, but 400 there). */
  exclusive: 400,
  /** 4099 for a group or message without the chat key or line to act through. */
  context: 422,
  /** 1001 for an upload without Content-Length. */
  length_required: 411,
  /** 3004 when HubSpot rate-limits us: 503 with retry_after (the service is busy, not broken). */
  upstream_rate_limited: 503,
} as const;
export type ErrorVariant = keyof typeof VARIANT_STATUS;

/** What a failure says beyond its code; the wire names them retry_after, attachment_index, allowed_effects, allowed_methods, message_id. */
export interface ErrorDetails {
  /** Seconds until a retry can succeed (1007, 4002, …). */
  retryAfter?: number;
  /** The 0-based entry of attachments[] or parts[] at fault. */
  attachmentIndex?: number;
  allowedEffects?: readonly string[];
  /** 405: the methods the path takes (also in the Allow header). */
  allowedMethods?: readonly string[];
  /** The message recorded before the failure (3002 while the line is asked whether it went out, a final 4001): look it up before sending again. */
  messageId?: string;
  variant?: ErrorVariant;
}

/**
 * A failure in the spec's terms: a stable code, a message for people, whether a retry can
 * help. Thrown by the domain; the HTTP layer alone turns it into a status and a body.
 */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly details: Readonly<ErrorDetails>;

  constructor(code: ErrorCode, message?: string, details: ErrorDetails = {}) {
    // No stack: a domain error is an answer, not a fault (its code and message say where it
    // came from), and capturing the stack under fastify's async frames cost ~12 µs, as much
    // as the rest of a refused request's own work.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message ?? ERROR_CODES[code].message);
    Error.stackTraceLimit = limit;
    this.name = 'DomainError';
    this.code = code;
    this.retryable = ERROR_CODES[code].retryable;
    this.details = details;
  }
}

export function isDomainError(err: unknown): err is DomainError {
  return err instanceof DomainError;
}
