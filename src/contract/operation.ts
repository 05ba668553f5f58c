/**
 * What one API operation is on the wire: its path, method, request schemas (body, params,
 * query, headers), success responses, the error codes it can answer with, its operationId,
 * summary and tags. Routes register from it, OpenAPI is generated from it, tests and the SDK
 * take their types from it: a wire shape is declared here and nowhere else.
 */
import type { Static, TSchema } from 'typebox';
import type { ErrorCode } from '../errors/registry.js';

/**
 * How a caller authenticates (see http/auth.ts). 'hubspot': HubSpot signs the request with the
 * app's client secret (X-HubSpot-Signature-v3 and X-HubSpot-Request-Timestamp, or the older
 * versions an operation accepts in `signatures`), checked by http/routes/crm/hubspot/context.ts.
 * 'tenant-bearer': as 'tenant' but never by HMAC, for operations whose answer is a secret: the
 * signed string (`<ts>.<body>`) names no route, so a signature copied from any log could be
 * replayed within its 300 s to be issued one (docs/decisions.md).
 */
export type AuthMode = 'tenant' | 'tenant-header' | 'tenant-bearer' | 'bearer-only' | 'admin' | 'hubspot' | 'none';

/** HubSpot's request-signature versions (its "Validating requests" docs). */
export type HubSpotSignatureVersion = 'v3' | 'v2' | 'v1';

/**
 * How failures look on the wire. 'envelope': `{success:false, error:{…}, trace_id}`; 'send':
 * /send's flat shape (spec rule 5); 'crm': the HubSpot-facing routes' `{ok:false, error, code,
 * message, retryable, trace_id}`, HTTP 200 for every failure but a refused signature (401);
 * 'crm-workflow': the same plus HubSpot's `outputFields` (hs_execution_state FAIL_CONTINUE).
 */
export type ErrorShape = 'envelope' | 'send' | 'crm' | 'crm-workflow';

/** An error an operation can return: a code at its registry status, or at the status this operation gives it. */
export type ErrorRef = ErrorCode | { code: ErrorCode; status: number };

export interface OperationSpec {
  operationId: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** OpenAPI form: `/api/v1/messages/{id}`. */
  path: string;
  summary: string;
  description?: string;
  tags: readonly string[];
  auth: AuthMode;
  body?: TSchema;
  params?: TSchema;
  query?: TSchema;
  headers?: TSchema;
  /** A body that is not JSON (the upload's raw bytes): documented here, streamed by the route. */
  rawBody?: { contentTypes: readonly string[]; description: string };
  /** Success answers by HTTP status (JSON). */
  responses: Readonly<Record<number, TSchema>>;
  /**
   * Answers that are not JSON (a download, an SSE stream, a 416 without a body), by HTTP status;
   * no contentType: no body. `headers`: what the answer carries beyond X-Trace-ID, name → meaning.
   */
  rawResponses?: Readonly<Record<number, { contentType?: string; description: string; headers?: Readonly<Record<string, string>> }>>;
  /** Codes beyond the ones every operation of its auth mode can answer with (see errors.ts). */
  errors: readonly ErrorRef[];
  /**
   * The code of a missing required body field, when not the spec's 1001 (decisions.md: 1003 on
   * POST /chats/{id}/messages, 1002 on edit); documented for every body that requires a field.
   * The route passes the same code to its validation (`missingFieldCode` of http/route.ts).
   */
  missingFieldCode?: 1002 | 1003;
  /**
   * Default 'envelope'. With 'crm'/'crm-workflow' the codes of `errors` (and the common ones)
   * are answered inside the 200 body, beside the success (see errors.ts `successResponses`).
   */
  errorShape?: ErrorShape;
  /** auth 'hubspot': the signature versions accepted (default v3 only). */
  signatures?: readonly HubSpotSignatureVersion[];
  /** Takes a token from the tenant's rate-limit bucket (1007). */
  rateLimited?: boolean;
  /** Left out of the OpenAPI document (health checks, the docs themselves). */
  hidden?: boolean;
}

/** Declares an operation, keeping its exact literal types for inference. */
export const operation = <const O extends OperationSpec>(o: O): O => o;

type StaticOr<S, Else> = S extends TSchema ? Static<S> : Else;

/** The static types of an operation's parts: `Body<typeof sendMessage>`. */
export type Body<O extends OperationSpec> = StaticOr<O['body'], undefined>;
export type Params<O extends OperationSpec> = StaticOr<O['params'], Record<string, never>>;
export type Query<O extends OperationSpec> = StaticOr<O['query'], Record<string, never>>;
/** The success body (of the first declared status when there are several with one shape). */
export type Response<O extends OperationSpec> = Static<O['responses'][keyof O['responses'] & number]>;
