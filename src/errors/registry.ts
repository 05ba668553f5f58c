/**
 * The one table of every error code in the spec: HTTP status, whether a retry
 * can help, and a default message. Routes throw `ApiError(code)`; the error
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

/** Extra fields the spec allows inside `error`. */
export interface ErrorExtras {
  retry_after?: number;
  attachment_index?: number;
  allowed_effects?: readonly string[];
  /** 405: the methods the path takes (also in the Allow header). */
  allowed_methods?: readonly string[];
}

export interface ApiErrorOptions extends ErrorExtras {
  /** Per-route HTTP status where the spec gives the code more than one (1011, 4099, 3003). */
  http?: number;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly http: number;
  readonly retryable: boolean;
  readonly extras: ErrorExtras;
  /** Ids known when the failure happened (lead, chat, line): the send route's flat shape reports them. */
  context?: Record<string, unknown>;

  constructor(code: ErrorCode, message?: string, options: ApiErrorOptions = {}) {
    const entry = ERROR_CODES[code];
    super(message ?? entry.message);
    this.name = 'ApiError';
    this.code = code;
    const { http, ...extras } = options;
    this.http = http ?? entry.http;
    this.retryable = entry.retryable;
    this.extras = extras;
  }
}

export function isApiError(err: unknown): err is ApiError {
  return err instanceof ApiError;
}
