/**
 * Every failure leaves in the spec's envelope:
 * `{ success: false, error: { status, code, message, retryable, …extras }, trace_id }`.
 * Unexpected exceptions become 3001 without internals.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, isApiError } from '../errors/registry.js';
import { validationToApiError } from './validation.js';

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
    default:
      if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
        return new ApiError(1002, err.message, { http: err.statusCode });
      }
      return undefined;
  }
}

export function toApiError(err: unknown): ApiError {
  if (isApiError(err)) return err;
  const fe = err as FastifyError;
  if (fe && Array.isArray(fe.validation)) return validationToApiError(fe.validation, fe.validationContext ?? 'body');
  return (fe && fromFastifyError(fe)) ?? new ApiError(3001, 'internal error; quote the trace_id to support');
}

export function sendError(reply: FastifyReply, req: FastifyRequest, apiErr: ApiError) {
  if (apiErr.extras.retry_after !== undefined) reply.header('Retry-After', String(Math.ceil(apiErr.extras.retry_after)));
  return reply.status(apiErr.http).send(errorEnvelope(apiErr, req.id));
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err, req, reply) => {
    const apiErr = toApiError(err);
    if (apiErr.code === 3001) req.log.error({ err, trace_id: req.id }, 'unhandled error');
    return sendError(reply, req, apiErr);
  });
  app.setNotFoundHandler((req, reply) =>
    sendError(reply, req, new ApiError(2011, `no route for ${req.method} ${req.url.split('?')[0]}`)),
  );
}
