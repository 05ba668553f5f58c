/**
 * Every failure leaves in the spec's envelope:
 * `{ success: false, error: { status, code, message, retryable, …extras }, trace_id }`.
 * Unexpected exceptions become 3001 without internals. Framework errors raised
 * before routing (a malformed or over-long URL) take the same path.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, isApiError } from '../errors/registry.js';
import { validationToApiError } from './validation.js';
import { secretPaths, type SecretPaths } from './log-paths.js';

export function errorEnvelope(err: ApiError, traceId: string) {
  return {
    success: false as const,
    error: { status: err.http, code: err.code, message: err.message, retryable: err.retryable, ...err.extras },
    trace_id: traceId,
  };
}

/** Fastify's own errors (body limits, media types, parser faults) in spec terms. */
function fromFastifyError(err: FastifyError): ApiError | undefined {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(1002, 'request body is larger than this route accepts', { http: 413 });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(1002, 'unsupported content-type; send application/json', { http: 415 });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError(1004, 'request body is not valid JSON');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError(1002, 'Content-Length does not match the body', { http: 400 });
    // Raised while routing: the message would echo the whole URL, which may hold a secret segment.
    case 'FST_ERR_BAD_URL':
      return new ApiError(1002, 'the URL path is not validly percent-encoded', { http: 400 });
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError(1002, 'a path parameter is too long', { http: 400 });
    default:
      if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
        return new ApiError(1002, err.message, { http: err.statusCode });
      }
      return undefined;
  }
}

export function toApiError(err: unknown, missingFieldCode?: 1001 | 1002 | 1003): ApiError {
  if (isApiError(err)) return err;
  const fe = err as FastifyError;
  if (fe && Array.isArray(fe.validation)) return validationToApiError(fe.validation, fe.validationContext ?? 'body', missingFieldCode);
  return (fe && fromFastifyError(fe)) ?? new ApiError(3001, 'internal error; quote the trace_id to support');
}

/** Short names for the send route's `error` field. */
function sendErrorName(code: ApiError['code']): string {
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
export function sendFailure(err: ApiError) {
  const ctx = err.context ?? {};
  const internal = err.code === 3001;
  return {
    status: 'failed' as const,
    error: sendErrorName(err.code),
    code: err.code,
    reason: internal ? 'internal error; quote the X-Trace-ID header to support' : err.message,
    retryable: err.retryable,
    lead_id: internal ? null : (ctx.lead_id ?? null),
    chat_id: internal ? null : (ctx.chat_id ?? null),
    lead_created: internal ? false : (ctx.lead_created ?? false),
    convo_id: internal ? null : (ctx.convo_id ?? null),
    phone_line_id: internal ? null : (ctx.phone_line_id ?? null),
    ...err.extras,
  };
}

export function sendError(reply: FastifyReply, req: FastifyRequest, apiErr: ApiError) {
  if (apiErr.extras.retry_after !== undefined) reply.header('Retry-After', String(Math.ceil(apiErr.extras.retry_after)));
  const flat = req.routeOptions?.config?.errorShape === 'send';
  return reply.status(apiErr.http).send(flat ? sendFailure(apiErr) : errorEnvelope(apiErr, req.id));
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
    reply.status(apiErr.http).send(errorEnvelope(apiErr, req.id));
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
    const body = JSON.stringify(errorEnvelope(new ApiError(1002, message, { http }), traceId));
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
    const apiErr = toApiError(err, req.routeOptions?.config?.missingFieldCode);
    if (apiErr.code === 3001) req.log.error({ err, trace_id: req.id }, 'unhandled error');
    const sent = sendError(reply, req, apiErr);
    opts.onFailure?.(req, reply);
    return sent;
  });
  // Thrown, so an unknown route takes the error path (and its hooks) like any other failure.
  app.setNotFoundHandler(async (req) => {
    throw new ApiError(2011, `no route for ${req.method} ${paths.of(req)}`);
  });
}
