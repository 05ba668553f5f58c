/**
 * The error answers of an operation, by HTTP status: what its auth mode and body can fail
 * with everywhere (a body that requires a field: its missing-field code), plus the codes it
 * declares. One place, so OpenAPI, the route's serializer and the contract tests agree.
 */
import { Type, type TSchema } from 'typebox';
import { ERROR_CODES, type ErrorCode } from '../errors/registry.js';
import type { ErrorRef, OperationSpec } from './operation.js';
import { ErrorEnvelope, SendFailure } from './common.js';
import { CrmFailure, CrmWorkflowFailure } from './hubspot-common.js';

const AUTH_ERRORS: Record<OperationSpec['auth'], readonly ErrorRef[]> = {
  // 1007: HMAC without the tenant header while the signer searches have spent their budget.
  tenant: [2012, 2004, 2013, 2001, 2005, 2007, 1007],
  'tenant-header': [2012, 2004, 2013, 2001, 2005, 2007],
  'tenant-bearer': [2012, 2004, 2001, 2005, 2007],
  'bearer-only': [2012, 2004, 2005, 2007],
  admin: [2012, 2004],
  // A missing, wrong or stale (over 5 minutes) HubSpot signature: 401, before anything else.
  hubspot: [2004],
  none: [],
};

/** Bodies are JSON (1004), within the route's limit (413), of its media type (415) and arrive in time (408). */
const BODY_ERRORS: readonly ErrorRef[] = [1004, { code: 1002, status: 413 }, { code: 1002, status: 415 }, { code: 1002, status: 408 }];

/** Every operation validates its input (1002) and may fail unexpectedly (3001). */
const ALWAYS: readonly ErrorRef[] = [1002, 3001];

type SchemaNode = { required?: unknown; properties?: Record<string, unknown>; patternProperties?: Record<string, unknown>; additionalProperties?: unknown; items?: unknown; prefixItems?: unknown[]; anyOf?: unknown[]; oneOf?: unknown[]; allOf?: unknown[] };

/**
 * Whether a body schema requires a field anywhere a request can leave one out: at its top, in a
 * union's branch or in a nested object. Validation answers such a request with the route's
 * missing-field code (http/validation.ts), so its operation documents that code.
 */
function requiresAField(schema: unknown): boolean {
  if (!schema || typeof schema !== 'object') return false;
  const s = schema as SchemaNode;
  if (Array.isArray(s.required) && s.required.length > 0) return true;
  const children = [
    ...Object.values(s.properties ?? {}),
    ...Object.values(s.patternProperties ?? {}),
    s.additionalProperties,
    ...(Array.isArray(s.items) ? s.items : [s.items]),
    ...(s.prefixItems ?? []),
    ...(s.anyOf ?? []),
    ...(s.oneOf ?? []),
    ...(s.allOf ?? []),
  ];
  return children.some(requiresAField);
}

/** A body that requires a field can miss one: 1001, or the code the operation answers that with. */
const missingFieldErrors = (op: OperationSpec): readonly ErrorRef[] => (op.body && requiresAField(op.body) ? [op.missingFieldCode ?? 1001] : []);

/**
 * The HubSpot-facing shapes: every failure is HTTP 200 `{ok:false, …}` but a refused signature (401)
 * and the codes an operation declares with a status of their own (the routes HubSpot retries: a
 * failure of ours rather than the request's outcome gets a status HubSpot retries on).
 */
export const isCrmShape = (op: OperationSpec) => op.errorShape === 'crm' || op.errorShape === 'crm-workflow';

const codeOfRef = (ref: ErrorRef) => (typeof ref === 'object' ? ref.code : ref);

/** The codes an operation can answer with, grouped by HTTP status (for the CRM shapes, 200 holds the `{ok:false}` ones). */
export function errorCodesByStatus(op: OperationSpec): Map<number, ErrorCode[]> {
  const common = [...ALWAYS, ...AUTH_ERRORS[op.auth], ...(op.body ? BODY_ERRORS : []), ...missingFieldErrors(op), ...(op.rateLimited ? [1007 as const] : [])];
  const crm = isCrmShape(op);
  // The CRM routes' handler answers even body-limit and media-type failures with 200; only the
  // statuses an operation declares itself (the not-configured 404, answered outside it) stand.
  const statusOf = (ref: ErrorRef, declared: boolean) => {
    if (!crm) return typeof ref === 'object' ? ref.status : ERROR_CODES[ref].http;
    if (declared && typeof ref === 'object') return ref.status;
    return codeOfRef(ref) === 2004 ? 401 : 200;
  };
  // A CRM operation's own status for a code replaces the 200 it would have as a common one.
  const ownStatus = new Set(crm ? op.errors.filter((r) => typeof r === 'object').map(codeOfRef) : []);
  const byStatus = new Map<number, ErrorCode[]>();
  const add = (ref: ErrorRef, declared: boolean) => {
    const status = statusOf(ref, declared);
    const list = byStatus.get(status) ?? [];
    if (!list.includes(codeOfRef(ref))) list.push(codeOfRef(ref));
    byStatus.set(status, list);
  };
  for (const ref of common) if (!ownStatus.has(codeOfRef(ref))) add(ref, false);
  for (const ref of op.errors) add(ref, true);
  return byStatus;
}

/**
 * Response schemas for the error statuses: the envelope, or /send's flat shape. For the CRM
 * shapes: the CRM body (401 a refused signature; 429/503 the failures HubSpot is to retry), but
 * the 404 answered from outside the CRM routes (the integration not configured) in the envelope.
 */
export function errorResponses(op: OperationSpec): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const [status, codes] of errorCodesByStatus(op)) {
    if (status < 400) continue;
    out[status] = op.errorShape === 'send' ? SendFailure(codes) : isCrmShape(op) && status !== 404 ? CrmFailure(codes) : ErrorEnvelope(codes);
  }
  return out;
}

/** The success schemas as answered: for the CRM shapes, 200 is the success or the `{ok:false}` failure. */
export function successResponses(op: OperationSpec): Record<number, TSchema> {
  if (!isCrmShape(op)) return { ...op.responses };
  const codes = errorCodesByStatus(op).get(200) ?? [];
  const failure = op.errorShape === 'crm-workflow' ? CrmWorkflowFailure(codes) : CrmFailure(codes);
  const success = op.responses[200];
  return { ...op.responses, 200: success ? Type.Union([success, failure], { description: 'The answer (ok true), or a failure (ok false)' }) : failure };
}

/**
 * A known path asked with a method it does not take (decisions.md, "Errors and input"): 405 with
 * code 2011 in the envelope, the methods the path takes in `Allow` and `error.allowed_methods`,
 * answered before authentication. The spec lists no 405 and it can answer on every path, so the
 * OpenAPI document gives it once (components.responses.MethodNotAllowed, named in
 * info.description) rather than on each operation.
 */
export const METHOD_NOT_ALLOWED = {
  name: 'MethodNotAllowed',
  status: 405,
  code: 2011,
  description: 'A known path asked with a method it does not take (on any path; before authentication): code 2011, the methods the path takes in Allow and error.allowed_methods',
  headers: { Allow: 'the methods the path takes, e.g. GET, HEAD' },
  body: Type.Object(
    {
      success: Type.Literal(false),
      error: Type.Object({
        status: Type.Literal(405),
        code: Type.Literal(2011),
        message: Type.String(),
        retryable: Type.Literal(false),
        allowed_methods: Type.Array(Type.String(), { description: 'the methods the path takes (as in Allow)' }),
      }),
      trace_id: Type.String(),
    },
    { description: 'Error envelope of a method the path does not take' },
  ),
} as const;
