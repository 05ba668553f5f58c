/**
 * The OpenAPI 3.1 document, built from the contract alone (no server needed): served at
 * /openapi.json and used at build time to generate the SDK's types. TypeBox schemas are
 * JSON Schema 2020-12, which OpenAPI 3.1 takes as they are.
 */
import type { TSchema } from 'typebox';
import type { AuthMode, OperationSpec } from './operation.js';
import type { WebhookSpec } from './webhook.js';
import { METHOD_NOT_ALLOWED, errorCodesByStatus, errorResponses, isCrmShape, successResponses } from './errors.js';
import { ERROR_CODES } from '../errors/registry.js';
import { schemaNamer, type SchemaNamer } from './openapi-refs.js';

const TAGS = [
  { name: 'phone lines', description: "The project's phone lines" },
  { name: 'messages', description: 'Send, look up, edit and react to messages' },
  { name: 'chats', description: 'Direct and group chats, their messages and participants' },
  { name: 'attachments', description: 'Upload slots, uploads and downloads of media' },
  { name: 'voice notes', description: 'Staging native voice notes' },
  { name: 'events', description: 'The event log: list, inspect, replay, stream, dev inbox' },
  { name: 'webhooks', description: 'Webhook subscriptions and their secrets; the events delivered to them' },
  { name: 'hubspot', description: 'The HubSpot integration: the project\'s installs (tenant auth) and the routes HubSpot calls, signed with the app\'s client secret' },
  { name: 'admin', description: 'Operator API (ADMIN_TOKEN): accounts, tenants, lines, simulator, test clock' },
];

/** OpenAPI security requirements per auth mode (the schemes are in components). */
export const SECURITY: Record<Exclude<AuthMode, 'hubspot'>, Record<string, string[]>[]> = {
  tenant: [{ bearer: [] }, { bearer: [], tenant: [] }, { hmac: [] }, { hmac: [], tenant: [] }],
  'tenant-header': [{ bearer: [], tenant: [] }, { hmac: [], tenant: [] }],
  'tenant-bearer': [{ bearer: [] }, { bearer: [], tenant: [] }],
  'bearer-only': [{ bearer: [] }],
  admin: [{ admin: [] }],
  none: [],
};

/** HubSpot's signature, per version an operation accepts: v3 is the signature and its timestamp together. */
const HUBSPOT_SECURITY = {
  v3: { hubspotSignatureV3: [], hubspotRequestTimestamp: [] },
  v2: { hubspotSignatureV2: [] },
  v1: { hubspotSignatureV1: [] },
};

export function securityOf(op: OperationSpec): Record<string, string[]>[] {
  if (op.auth === 'hubspot') return (op.signatures ?? ['v3']).map((v) => HUBSPOT_SECURITY[v]);
  return SECURITY[op.auth];
}

/** The CRM routes' failures share the 200 with the success: their codes, told in the 200's description. */
function crmFailureNote(op: OperationSpec): string {
  const codes = errorCodesByStatus(op).get(200) ?? [];
  return `; or ok:false with code ${codes.join(', ')}`;
}

type JsonObject = { properties?: Record<string, TSchema & { description?: string }>; required?: string[] };

function parameters(named: SchemaNamer, where: 'path' | 'query' | 'header', schema: TSchema | undefined) {
  const obj = schema as JsonObject | undefined;
  return Object.entries(obj?.properties ?? {}).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || (obj?.required ?? []).includes(name),
    ...(s.description && { description: s.description }),
    schema: named.ref(s),
  }));
}

const STATUS_TEXT: Record<number, string> = {
  200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No content', 206: 'Partial content', 400: 'Bad request', 401: 'Unauthorized',
  402: 'Payment required', 403: 'Forbidden', 404: 'Not found', 405: 'Method not allowed', 408: 'Request timeout', 409: 'Conflict',
  411: 'Length required', 413: 'Payload too large', 415: 'Unsupported media type', 416: 'Range not satisfiable', 422: 'Unprocessable',
  429: 'Too many requests', 500: 'Internal error', 501: 'Not implemented', 502: 'Bad gateway', 503: 'Unavailable',
};

/** Headers the spec puts on answers: X-Trace-ID on every one, Retry-After mirroring retry_after (1007, 4002). */
const RESPONSE_HEADERS = {
  'X-Trace-ID': { description: 'the trace_id of this request (also in error bodies): quote it to support', schema: { type: 'string' } },
  'Retry-After': { description: 'seconds to wait, the same as error.retry_after', schema: { type: 'integer', minimum: 0 } },
};
const RETRY_AFTER_CODES = new Set<unknown>([1007, 4002]);

function headersOf(codes: readonly unknown[] = []) {
  return {
    'X-Trace-ID': { $ref: '#/components/headers/X-Trace-ID' },
    ...(codes.some((c) => RETRY_AFTER_CODES.has(c)) && { 'Retry-After': { $ref: '#/components/headers/Retry-After' } }),
  };
}

/** An error body's component name: its shape and its codes (`ErrorEnvelope_2005_2007`). */
function errorBodyName(op: OperationSpec, status: number, codes: readonly unknown[]): string {
  const shape = op.errorShape === 'send' ? 'SendFailure' : isCrmShape(op) && status !== 404 ? 'CrmFailure' : 'ErrorEnvelope';
  return `${shape}_${codes.map((c) => String(c).replace(/[^A-Za-z0-9]/g, '')).join('_')}`;
}

/** How many operations answer with each error body (by its JSON): the ones several share are named. */
function countErrorBodies(operations: readonly OperationSpec[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const op of operations) {
    if (op.hidden) continue;
    for (const schema of Object.values(errorResponses(op))) {
      const key = JSON.stringify(schema);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return counts;
}

function operationObject(op: OperationSpec, named: SchemaNamer, errorBodies: Map<string, number>) {
  const responses: Record<string, unknown> = {};
  for (const [status, schema] of Object.entries(successResponses(op))) {
    const description = (op.responses[Number(status)] as { description?: string } | undefined)?.description ?? STATUS_TEXT[Number(status)] ?? 'Success';
    responses[status] = { description: isCrmShape(op) && status === '200' ? description + crmFailureNote(op) : description, headers: headersOf(), content: { 'application/json': { schema: named.ref(schema) } } };
  }
  for (const [status, raw] of Object.entries(op.rawResponses ?? {})) {
    responses[status] = {
      description: raw.description,
      headers: { ...headersOf(), ...Object.fromEntries(Object.entries(raw.headers ?? {}).map(([name, description]) => [name, { description, required: true, schema: { type: 'string' } }])) },
      ...(raw.contentType && { content: { [raw.contentType]: { schema: { type: 'string', format: 'binary' } } } }),
    };
  }
  const codes = errorCodesByStatus(op);
  for (const [status, schema] of Object.entries(errorResponses(op))) {
    const list = codes.get(Number(status)) ?? [];
    const description = list.map((c) => `${c}: ${ERROR_CODES[c].message}`).join('; ') + (isCrmShape(op) && status === '404' ? ' (the HubSpot integration is not configured on this server)' : '');
    const body = (errorBodies.get(JSON.stringify(schema)) ?? 0) > 1 ? named.shared(schema, errorBodyName(op, Number(status), list)) : named.ref(schema);
    responses[status] = { description, headers: headersOf(list), content: { 'application/json': { schema: body } } };
  }
  const requestBody = op.body
    ? { required: true, content: { 'application/json': { schema: named.ref(op.body) } } }
    : op.rawBody
      ? { required: true, description: op.rawBody.description, content: Object.fromEntries(op.rawBody.contentTypes.map((t) => [t, { schema: { type: 'string', format: 'binary' } }])) }
      : undefined;
  const params = [...parameters(named, 'path', op.params), ...parameters(named, 'query', op.query), ...parameters(named, 'header', op.headers)];
  return {
    operationId: op.operationId,
    summary: op.summary,
    ...(op.description && { description: op.description }),
    tags: [...op.tags],
    security: securityOf(op),
    ...(params.length && { parameters: params }),
    ...(requestBody && { requestBody }),
    responses,
  };
}

/** A webhook as OpenAPI 3.1 describes it: the POST the service sends to the subscriber's url. */
function webhookObject(w: WebhookSpec, brand: string, named: SchemaNamer) {
  return {
    post: {
      operationId: w.operationId,
      summary: w.summary,
      description: w.description,
      tags: [...w.tags],
      // The receiver authenticates the delivery by its signature headers, not by a scheme of ours.
      security: [],
      parameters: parameters(named, 'header', w.headers(brand)),
      requestBody: { required: true, content: { 'application/json': { schema: named.ref(w.body) } } },
      responses: Object.fromEntries(Object.entries(w.responses).map(([range, description]) => [range, { description }])),
    },
  };
}

export function buildOpenApi(operations: readonly OperationSpec[], webhooks: readonly WebhookSpec[], opts: { brand: string; baseUrl: string }) {
  // The shared shapes: named once under components.schemas, referenced by $ref (see openapi-refs.ts).
  const named = schemaNamer();
  const errorBodies = countErrorBodies(operations);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    if (op.hidden) continue;
    (paths[op.path] ??= {})[op.method.toLowerCase()] = operationObject(op, named, errorBodies);
  }
  const webhookObjects = Object.fromEntries(webhooks.map((w) => [w.event, webhookObject(w, opts.brand, named)]));
  const methodNotAllowed = {
    description: METHOD_NOT_ALLOWED.description,
    headers: { Allow: { description: METHOD_NOT_ALLOWED.headers.Allow, required: true, schema: { type: 'string' } }, ...headersOf() },
    content: { 'application/json': { schema: named.ref(METHOD_NOT_ALLOWED.body) } },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Blueline API',
      version: 'v1',
      description:
        'Self-hosted iMessage API gateway. Errors use the envelope {success:false, error:{status, code, message, retryable}, trace_id}; ' +
        'POST /api/v1/send uses the flat failure shape {status:"failed", error, code, reason, retryable, …}; the HubSpot-facing /crm/hubspot/* routes answer failures as HTTP 200 ' +
        '{ok:false, error, code, message, retryable, trace_id} (a refused signature: 401). `code` is stable; `retryable` is authoritative. ' +
        `Every path: a method it does not take is HTTP ${METHOD_NOT_ALLOWED.status} with code ${METHOD_NOT_ALLOWED.code} and an Allow header (#/components/responses/${METHOD_NOT_ALLOWED.name}; not repeated on each operation).`,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: opts.baseUrl, description: 'This service' }],
    tags: TAGS,
    paths,
    webhooks: webhookObjects,
    components: {
      schemas: named.components(),
      // Answered on every path, so described once here (see METHOD_NOT_ALLOWED).
      responses: { [METHOD_NOT_ALLOWED.name]: methodNotAllowed },
      headers: RESPONSE_HEADERS,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'The account signing secret' },
        hmac: {
          type: 'apiKey',
          in: 'header',
          name: `x-${opts.brand}-signature`,
          description: 'v1,<unix seconds>,<hex HMAC-SHA256 of "<ts>.<raw body>" keyed with the signing secret>',
        },
        tenant: { type: 'apiKey', in: 'header', name: `x-${opts.brand}-tenant`, description: 'Tenant slug: required for multi-tenant accounts and the event endpoints' },
        admin: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN (operator API only)' },
        // HubSpot signs its requests to /crm/hubspot/* with the app's client secret (HUBSPOT_CLIENT_SECRET).
        hubspotSignatureV3: {
          type: 'apiKey',
          in: 'header',
          name: 'X-HubSpot-Signature-v3',
          description:
            'HubSpot request signature v3: base64 HMAC-SHA256, keyed with the app\'s client secret, of method + URI (PUBLIC_BASE_URL + path and query, as HubSpot called it) + raw body + X-HubSpot-Request-Timestamp. Refused when the timestamp is over 5 minutes old.',
        },
        hubspotRequestTimestamp: { type: 'apiKey', in: 'header', name: 'X-HubSpot-Request-Timestamp', description: 'milliseconds since the epoch; part of the v3 signature' },
        hubspotSignatureV2: {
          type: 'apiKey',
          in: 'header',
          name: 'X-HubSpot-Signature',
          description: 'HubSpot request signature v2 (X-HubSpot-Signature-Version: v2): hex SHA-256 of client secret + method + URI + raw body. Where an operation accepts it.',
        },
        hubspotSignatureV1: {
          type: 'apiKey',
          in: 'header',
          name: 'X-HubSpot-Signature',
          description: 'HubSpot request signature v1 (X-HubSpot-Signature-Version: v1): hex SHA-256 of client secret + raw body. Where an operation accepts it (webhooks).',
        },
      },
    },
  };
}
