/**
 * Checking what the service really sent against its contract (src/contract/), with ajv: every
 * object closed for the check, so a field the service sends and the contract does not declare
 * fails as surely as a declared one that is missing or mistyped.
 */
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from 'typebox';

// ajv-formats ships CommonJS; under NodeNext its default import is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;
export const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));

/** The schema with every object closed (additionalProperties: false), unions included. */
export function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (!schema || typeof schema !== 'object') return schema;
  const out = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, closed(v)]));
  return 'properties' in out ? { ...out, additionalProperties: false } : out;
}

/** A headers schema as node hands headers over: names lowercased (they are case-insensitive). */
export function lowercased(schema: TSchema) {
  const s = schema as unknown as { properties: Record<string, unknown>; required?: string[] };
  return {
    ...s,
    properties: Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k.toLowerCase(), v])),
    required: (s.required ?? []).map((k) => k.toLowerCase()),
  };
}
