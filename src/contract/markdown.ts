/**
 * docs/api.md, written from the contract: every operation with its auth, parameters, body
 * and answers, every webhook with its headers and envelope, and the error-code table. `npm run docs:api` rewrites it; a test fails when
 * the file and the contract disagree, so the reference in the repository never drifts.
 */
import type { TSchema } from 'typebox';
import type { OperationSpec } from './operation.js';
import type { WebhookSpec } from './webhook.js';
import { METHOD_NOT_ALLOWED, errorCodesByStatus } from './errors.js';
import { ERROR_CODES } from '../errors/registry.js';
import { PATTERN_MEANS_KEYWORD } from './common.js';

type Schema = TSchema & {
  type?: string | string[];
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  const?: unknown;
  enum?: unknown[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  format?: string;
};

const AUTH: Record<OperationSpec['auth'], string> = {
  tenant: 'signing secret (Bearer or HMAC); `x-service-tenant` for multi-tenant accounts',
  'tenant-header': 'signing secret (Bearer or HMAC) and `x-service-tenant`',
  'tenant-bearer': 'signing secret as Bearer, not HMAC (the answer is a secret: a request signature copied from a log could be replayed to get one); `x-service-tenant` for multi-tenant accounts',
  'bearer-only': 'Bearer only (the slot\'s `required_headers.authorization`)',
  admin: 'Bearer `ADMIN_TOKEN`',
  hubspot: "HubSpot's request signature (the app's client secret)",
  none: 'none',
};

const ERROR_SHAPE: Record<NonNullable<OperationSpec['errorShape']>, string> = {
  envelope: 'envelope',
  send: 'flat send shape',
  crm: 'CRM shape `{ ok: false, error, code, message, retryable, trace_id }`, HTTP 200; a refused signature: 401 in the same body; a code listed under 429/503: that status, same body (HubSpot retries it); not configured: 404 in the envelope',
  'crm-workflow':
    'CRM shape `{ outputFields: { hs_execution_state: "FAIL_CONTINUE", error }, ok: false, error, code, message, retryable, trace_id }`, HTTP 200; a refused signature: 401 `{ ok: false, … }`; a code listed under 429/503: that status, `{ ok: false, … }` without outputFields (HubSpot retries it); not configured: 404 in the envelope',
};

/** A short type for a table cell: `string`, `"a" | "b"`, `object[]`. */
function typeOf(s: Schema): string {
  const alts = s.anyOf ?? s.oneOf;
  if (alts) return alts.map(typeOf).join(' \\| ');
  if (s.const !== undefined) return `\`${JSON.stringify(s.const)}\``;
  if (s.enum) return s.enum.map((v) => `\`${JSON.stringify(v)}\``).join(' \\| ');
  if (s.type === 'array') {
    const item = s.items ? typeOf(s.items) : 'any';
    return item.includes('|') ? `(${item})[]` : `${item}[]`;
  }
  if (Array.isArray(s.type)) return s.type.join(' \\| ');
  return s.type ?? 'any';
}

function rules(s: Schema): string {
  const r: string[] = [];
  if (s.description) r.push(s.description);
  if (s.format) r.push(`format ${s.format}`);
  // In words where the schema says what its pattern means (a reader need not decode the regular
  // expression); not again where its description says it already.
  const means = (s as Record<string, unknown>)[PATTERN_MEANS_KEYWORD];
  if (s.pattern && typeof means !== 'string') r.push(`pattern \`${s.pattern.replace(/\|/g, '\\|')}\``);
  else if (s.pattern && !s.description) r.push(String(means));
  if (s.minLength !== undefined || s.maxLength !== undefined) r.push(`length ${s.minLength ?? 0}–${s.maxLength ?? '∞'}`);
  if (s.minimum !== undefined || s.maximum !== undefined) r.push(`range ${s.minimum ?? '−∞'}–${s.maximum ?? '∞'}`);
  return r.join('; ').replace(/\n/g, ' ');
}

/** Rows for an object's fields, nested objects as `a.b`, arrays of objects as `a[].b`. */
function fieldRows(s: Schema | undefined, prefix = ''): string[] {
  if (!s?.properties) return [];
  return Object.entries(s.properties).flatMap(([name, f]) => {
    const path = `${prefix}${name}`;
    const required = (s.required ?? []).includes(name) ? 'yes' : 'no';
    const row = `| \`${path}\` | ${typeOf(f)} | ${required} | ${rules(f)} |`;
    const inner = f.properties ? f : f.type === 'array' && f.items?.properties ? f.items : undefined;
    return [row, ...fieldRows(inner, `${path}${inner === f ? '.' : '[].'}`)];
  });
}

function table(title: string, s: Schema | undefined): string[] {
  const rows = fieldRows(s);
  if (!rows.length) return [];
  return [`${title}:`, '', '| Field | Type | Required | Rules |', '|---|---|---|---|', ...rows, ''];
}

function section(op: OperationSpec): string[] {
  const out = [`### ${op.method} ${op.path}`, '', `\`${op.operationId}\` — ${op.summary}`, ''];
  if (op.description) out.push(op.description, '');
  const versions = op.auth === 'hubspot' ? `: ${(op.signatures ?? ['v3']).map((v) => (v === 'v3' ? '`X-HubSpot-Signature-v3` + `X-HubSpot-Request-Timestamp`' : `${v} (\`X-HubSpot-Signature\` with \`X-HubSpot-Signature-Version: ${v}\`)`)).join(', or ')}` : '';
  out.push(`Auth: ${AUTH[op.auth]}${versions}.${op.rateLimited ? ' Rate limited (1007).' : ''}`, '');
  out.push(...table('Path', op.params as Schema), ...table('Query', op.query as Schema), ...table('Headers', op.headers as Schema), ...table('Body', op.body as Schema));
  if (op.rawBody) out.push(`Body: ${op.rawBody.description} (${op.rawBody.contentTypes.map((t) => `\`${t}\``).join(', ')}).`, '');
  for (const [status, schema] of Object.entries(op.responses)) out.push(...table(`Answer ${status}`, schema as Schema));
  for (const [status, raw] of Object.entries(op.rawResponses ?? {})) {
    const headers = Object.entries(raw.headers ?? {}).map(([name, value]) => `; \`${name}: ${value}\``).join('');
    out.push(`Answer ${status}: ${raw.description}${raw.contentType ? ` (\`${raw.contentType}\`)` : ''}${headers}.`, '');
  }
  const errors = [...errorCodesByStatus(op)].sort(([a], [b]) => a - b).map(([status, codes]) => `${status}: ${codes.join(', ')}`);
  out.push(`Errors (${ERROR_SHAPE[op.errorShape ?? 'envelope']}) — ${errors.join('; ')}.`, '');
  return out;
}

/** The object variants of the unions inside a schema (e.g. the parts of a message), by path. */
function variants(s: Schema | undefined, prefix = ''): [string, Schema][] {
  if (!s?.properties) return [];
  return Object.entries(s.properties).flatMap(([name, f]): [string, Schema][] => {
    const path = `${prefix}${name}`;
    const item = f.type === 'array' ? f.items : f;
    const alts = (item?.anyOf ?? item?.oneOf ?? []).filter((a) => a.properties);
    if (alts.length) return alts.map((a) => [`\`${path}${item === f ? '' : '[]'}\` ${typeOf(a.properties!.type ?? a)}`, a]);
    return variants(item?.properties ? item : undefined, `${path}${item === f ? '.' : '[].'}`);
  });
}

function webhookSection(w: WebhookSpec): string[] {
  const out = [`### ${w.event}`, '', `\`${w.operationId}\` — ${w.summary}`, '', w.description, ''];
  out.push('Sent as `POST` to the subscription\'s `url`, with `content-type: application/json`.', '');
  out.push(...table('Headers', w.headers('service') as Schema));
  out.push(...table('Body', w.body as Schema));
  for (const [title, variant] of variants(w.body as Schema)) out.push(...table(title, variant));
  out.push(`Answers — ${Object.entries(w.responses).map(([range, meaning]) => `${range}: ${meaning}`).join('; ')}.`, '');
  return out;
}

export function apiMarkdown(operations: readonly OperationSpec[], webhooks: readonly WebhookSpec[]): string {
  const visible = operations.filter((o) => !o.hidden);
  const tags = [...new Set(visible.map((o) => o.tags[0] ?? 'other'))];
  const lines = [
    '# Blueline API reference',
    '',
    '<!-- Generated from src/contract/ by `npm run docs:api`; a test fails when it is out of date. Do not edit by hand. -->',
    '',
    'Base address: the service\'s URL (`base_url` in `data/demo.json`). JSON bodies use `content-type: application/json`.',
    'Errors use the envelope `{ success: false, error: { status, code, message, retryable, retry_after?, attachment_index?, allowed_effects?, allowed_methods? }, trace_id }`,',
    'except `POST /api/v1/send`, whose failures are flat: `{ status: "failed", error, code, reason, retryable, lead_id, chat_id, lead_created, convo_id, phone_line_id }`,',
    'and the HubSpot-facing `/crm/hubspot/*` routes, which answer failures as HTTP 200 `{ ok: false, error, code, message, retryable, trace_id }` (a refused signature: 401).',
    '`code` is stable, `message` may change, `retryable` is authoritative. Every answer carries `X-Trace-ID`.',
    `On every path, a method the path does not take is HTTP ${METHOD_NOT_ALLOWED.status} / ${METHOD_NOT_ALLOWED.code} in the envelope with \`Allow\` and \`error.allowed_methods\`, answered before authentication (not repeated below).`,
    'The machine-readable form of this page is `GET /openapi.json`.',
    '',
  ];
  for (const tag of tags) {
    lines.push(`## ${tag[0]!.toUpperCase()}${tag.slice(1)}`, '');
    for (const op of visible.filter((o) => (o.tags[0] ?? 'other') === tag)) lines.push(...section(op));
  }
  if (webhooks.length) {
    lines.push('## Webhooks sent', '', 'Requests the service sends to your webhook subscriptions (OpenAPI `webhooks`).', '');
    for (const w of webhooks) lines.push(...webhookSection(w));
  }
  lines.push('## Error codes', '', '| Code | HTTP | Retryable | Meaning |', '|---|---|---|---|');
  for (const [code, e] of Object.entries(ERROR_CODES)) lines.push(`| ${code} | ${e.http} | ${e.retryable ? 'yes' : 'no'} | ${e.message} |`);
  return `${lines.join('\n')}\n`;
}
