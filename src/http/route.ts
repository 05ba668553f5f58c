/**
 * Registers an operation of `src/contract/` as a fastify route: method, path, schemas,
 * operationId, security and error responses all come from the contract, so a route file
 * holds only its handler (parse → domain → map).
 */
import type { FastifyReply, FastifyRequest, RouteOptions, preHandlerHookHandler, preValidationHookHandler } from 'fastify';
import type { Body, OperationSpec, Params, Query, Response } from '../contract/operation.js';
import { errorResponses, isCrmShape } from '../contract/errors.js';
import type { TypedApp } from './typed.js';

export type OperationRequest<O extends OperationSpec> = FastifyRequest<{ Body: Body<O>; Params: Params<O>; Querystring: Query<O> }>;

export type OperationHandler<O extends OperationSpec> = (
  req: OperationRequest<O>,
  reply: FastifyReply,
) => Promise<Response<O> | FastifyReply | void> | Response<O> | FastifyReply | void;

export interface RouteExtras {
  bodyLimit?: number;
  secretParams?: string[];
  /** Bodies must keep a minimum transfer rate instead of arriving within the JSON routes' deadline (http/slow-body.ts). */
  minBodyRate?: boolean;
  /** Streams a stored file: a client that stops taking it is cut off (http/slow-body.ts). */
  minAnswerRate?: boolean;
  preHandler?: preHandlerHookHandler;
  /** Runs after authentication, before validation (e.g. lowercasing a case-insensitive enum). */
  preValidation?: preValidationHookHandler;
  /** Answers some failures itself rather than through the error handler (so the default request log logs them after the answer). */
  answersFailures?: boolean;
  /** Content types this route parses itself (the upload's raw bytes). */
  onRequest?: RouteOptions['onRequest'];
}

/** `/api/v1/messages/{id}` → `/api/v1/messages/:id`. */
export const fastifyPath = (path: string) => path.replace(/\{([^}]+)\}/g, ':$1');

/** The fastify schema of an operation: what it validates and serializes (OpenAPI: contract/openapi.ts). */
export function routeSchema(op: OperationSpec) {
  return {
    ...(op.body && { body: op.body }),
    ...(op.params && { params: op.params }),
    ...(op.query && { querystring: op.query }),
    ...(op.headers && { headers: op.headers }),
    // The success schemas serialize successes; every failure (the CRM routes' ok:false 200s too)
    // is serialized by its error handler as it is.
    response: { ...errorResponses(op), ...op.responses },
  };
}

export function route<O extends OperationSpec>(app: TypedApp, op: O, handler: OperationHandler<O>, extras: RouteExtras = {}): void {
  app.route({
    method: op.method,
    url: fastifyPath(op.path),
    schema: routeSchema(op),
    config: {
      auth: op.auth,
      errorShape: op.errorShape ?? 'envelope',
      rateLimited: op.rateLimited,
      // The code for a missing required field (spec: 1001), as the contract documents it.
      missingFieldCode: op.missingFieldCode ?? 1001,
      secretParams: extras.secretParams,
      minBodyRate: extras.minBodyRate,
      minAnswerRate: extras.minAnswerRate,
      // The HubSpot routes' failures come from their context's own error handler.
      answersFailures: extras.answersFailures || isCrmShape(op),
    },
    ...(extras.bodyLimit !== undefined && { bodyLimit: extras.bodyLimit }),
    ...(extras.preHandler && { preHandler: extras.preHandler }),
    ...(extras.preValidation && { preValidation: extras.preValidation }),
    ...(extras.onRequest && { onRequest: extras.onRequest }),
    // The contract's types are the handler's: fastify's provider cannot see through the generic.
    handler: handler as unknown as RouteOptions['handler'],
  });
}
