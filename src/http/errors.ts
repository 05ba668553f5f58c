/**
 * Every failure leaves in the spec's envelope:
 * `{ success: false, error: { status, code, message, retryable, …extras }, trace_id }`.
 * Unexpected exceptions become 3001 without internals. Framework errors raised
 * before routing (a malformed or over-long URL) take the same path.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, ERROR_CODES, VARIANT_STATUS, isDomainError, type ErrorCode, type ErrorDetails } from '../errors/registry.js';
import { validationToApiError } from './validation.js';
import { SendFailed } from '../domain/messaging/failures.js';
import { TenantRefusal } from '../domain/accounts-tenants/auth.js';
import { secretPaths, type SecretPaths } from './log-paths.js';

/** A failure found by the HTTP layer itself, with a status outside the code's own (413, 415, 405, 408). */
export class HttpFailure extends DomainError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly status: number,
    details: ErrorDetails = {},
  ) {
    super(code, message, details);
  }
}

/** The one mapping from a failure to its HTTP status: the code's, or its named variant's. */
export function httpStatusOf(err: DomainError): number {
  if (err instanceof HttpFailure) return err.status;
  return err.details.variant ? VARIANT_STATUS[err.details.variant] : ERROR_CODES[err.code].http;
}

/** The spec's extra fields inside `error` (and the flat send failure), in wire names. */
export function wireDetails(d: Readonly<ErrorDetails>) {
  return {
    ...(d.retryAfter !== undefined && { retry_after: d.retryAfter }),
    ...(d.attachmentIndex !== undefined && { attachment_index: d.attachmentIndex }),
    ...(d.allowedEffects !== undefined && { allowed_effects: d.allowedEffects }),
    ...(d.allowedMethods !== undefined && { allowed_methods: d.allowedMethods }),
    ...(d.messageId !== undefined && { message_id: d.messageId }),
  };
}

export function errorEnvelope(err: DomainError, traceId: string) {
  return {
    success: false as const,
    error: { status: httpStatusOf(err), code: err.code, message: err.message, retryable: err.retryable, ...wireDetails(err.details) },
    trace_id: traceId,
  };
}

/** Fastify's own errors (body limits, media types, parser faults) in spec terms. */
function fromFastifyError(err: FastifyError): DomainError | undefined {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new HttpFailure(1002, 'request body is larger than this route accepts', 413);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new HttpFailure(1002, 'unsupported content-type; send application/json', 415);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new DomainError(1004, 'request body is not valid JSON');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new HttpFailure(1002, 'Content-Length does not match the body', 400);
    // Raised while routing: the message would echo the whole URL, which may hold a secret segment.
    case 'FST_ERR_BAD_URL':
      return new HttpFailure(1002, 'the URL path is not validly percent-encoded', 400);
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new HttpFailure(1002, 'a path parameter is too long', 400);
    default:
      if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
        return new HttpFailure(1002, err.message, err.statusCode);
      }
      return undefined;
  }
}

export function toApiError(err: unknown, missingFieldCode?: 1001 | 1002 | 1003): DomainError {
  if (isDomainError(err)) return err;
  const fe = err as FastifyError;
  if (fe && Array.isArray(fe.validation)) return validationToApiError(fe.validation, fe.validationContext ?? 'body', missingFieldCode);
  return (fe && fromFastifyError(fe)) ?? new DomainError(3001, 'internal error; quote the trace_id to support');
}

/** Short names for the send route's `error` field. */
function sendErrorName(code: DomainError['code']): string {
  if (typeof code === 'string') return code;
  if (code === 4001) return 'send_failed';
  if (code === 4002) return 'lines_saturated';
  if (code === 1007) return 'rate_limited';
  if (code === 3002 || code === 3003 || code === 3004) return 'delivery_unavailable';
  if (code === 4098) return 'unknown_effect';
  if (code === 4099) return 'unsupported';
  if (code === 2006) return 'line_not_assigned';
  if (code >= 5001) return 'attachment_error';
  if (code === 2004 || code === 2012 || code === 2013) return 'unauthorized';
  if (code === 2005 || code === 2007) return 'forbidden';
  if (code === 2001) return 'tenant_not_found';
  if (code === 3001) return 'internal_error';
  return 'invalid_request';
}

/** The send route's flat failure shape (spec rule 5): no envelope, no trace_id in the body. */
export function sendFailure(err: DomainError) {
  const ids = err instanceof SendFailed && err.code !== 3001 ? err.ids : undefined;
  return {
    status: 'failed' as const,
    error: sendErrorName(err.code),
    code: err.code,
    reason: err.code === 3001 ? 'internal error; quote the X-Trace-ID header to support' : err.message,
    retryable: err.retryable,
    lead_id: ids?.leadId ?? null,
    chat_id: ids?.chatId ?? null,
    lead_created: ids?.leadCreated ?? false,
    convo_id: ids?.convoId ?? null,
    phone_line_id: ids?.phoneLineId ?? null,
    ...(ids?.messageId !== undefined && { message_id: ids.messageId }),
    ...wireDetails(err.details),
  };
}

export function sendError(reply: FastifyReply, req: FastifyRequest, apiErr: DomainError) {
  if (apiErr.details.retryAfter !== undefined) reply.header('Retry-After', String(Math.ceil(apiErr.details.retryAfter)));
  const flat = req.routeOptions?.config?.errorShape === 'send';
  return reply.status(httpStatusOf(apiErr)).send(flat ? sendFailure(apiErr) : errorEnvelope(apiErr, req.id));
}

type OnFailure = (req: FastifyRequest, reply: FastifyReply) => void;

/**
 * Fastify's `frameworkErrors` option: failures found while routing (a malformed
 * percent-encoding, a path parameter over `maxParamLength`) happen before any hook,
 * so this handler gives them the envelope, `X-Trace-ID` and the request log itself.
 * No route is known yet, so the send route's flat shape cannot apply (nor does it
 * matter: that route has no path parameters, the only place these errors arise).
 */
export function frameworkErrorHandler(opts: { onFailure?: OnFailure } = {}) {
  return (err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    reply.header('X-Trace-ID', req.id);
    const apiErr = toApiError(err);
    if (apiErr.code === 3001) req.log.error({ err, trace_id: req.id }, 'unhandled error');
    reply.status(httpStatusOf(apiErr)).send(errorEnvelope(apiErr, req.id));
    opts.onFailure?.(req, reply);
  };
}

/**
 * Requests Node's HTTP parser refuses (a malformed header line, a bad Content-Length, headers
 * over the size limit) never reach fastify: answered here in the envelope with X-Trace-ID, and
 * told to `onRefused` (the request log: no method or path, the parser never got them whole).
 */
export function clientErrorHandler(newTraceId: () => string, onRefused?: (refusal: { trace_id: string; status: number }) => void) {
  return (err: { code?: string }, socket: import('node:net').Socket): void => {
    // A client that went away is simply gone (as Node does it).
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const [http, status, message] =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'request headers are too large']
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'Request Timeout', 'the request did not arrive in time']
          : [400, 'Bad Request', 'malformed HTTP request'];
    const traceId = newTraceId();
    onRefused?.({ trace_id: traceId, status: http });
    const body = JSON.stringify(errorEnvelope(new HttpFailure(1002, message, http), traceId));
    socket.end(
      `HTTP/1.1 ${http} ${status}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
        `x-trace-id: ${traceId}\r\nconnection: close\r\n\r\n${body}`,
    );
  };
}

/**
 * `onFailure` is told of every failed request once its status is set (the default request log).
 * `paths` learns the routes' secret path parameters (so register this before the routes).
 */
export function registerErrorHandling(app: FastifyInstance, opts: { onFailure?: OnFailure; paths?: SecretPaths } = {}): void {
  const paths = opts.paths ?? secretPaths();
  app.addHook('onRoute', paths.track);
  app.setErrorHandler((err, req, reply) => {
    if (err instanceof TenantRefusal) req.refusedTenant = err.tenant;
    const apiErr = toApiError(err, req.routeOptions?.config?.missingFieldCode);
    if (apiErr.code === 3001) req.log.error({ err, trace_id: req.id }, 'unhandled error');
    const sent = sendError(reply, req, apiErr);
    opts.onFailure?.(req, reply);
    return sent;
  });
  // Thrown, so an unknown route takes the error path (and its hooks) like any other failure.
  app.setNotFoundHandler(async (req) => {
    throw new DomainError(2011, `no route for ${req.method} ${paths.of(req)}`);
  });
}
