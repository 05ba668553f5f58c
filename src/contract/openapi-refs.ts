/**
 * Names the shared shapes of the OpenAPI document: each occurrence of a schema of
 * NAMED_SCHEMAS becomes `{ $ref: '#/components/schemas/<Name>' }` and the schema is written
 * once under components.schemas. An occurrence is recognized by its JSON (TypeBox copies a
 * schema for Optional, so object identity is not enough); one that differs only by its own
 * description keeps it beside the $ref (OpenAPI 3.1 allows that), so resolving the $ref gives
 * back exactly the inline schema.
 */
import type { TSchema } from 'typebox';
import { NAMED_SCHEMAS, UNREFERENCED_SCHEMAS } from './schemas.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

const REF_PREFIX = '#/components/schemas/';

/** The wire form of a schema (what JSON.stringify gives: no TypeBox symbols, no undefined). */
const plain = (s: unknown): Json => JSON.parse(JSON.stringify(s)) as Json;

const isObject = (v: Json): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

function withoutDescription(o: JsonObject): string {
  const { description: _description, ...rest } = o;
  return JSON.stringify(rest);
}

export interface SchemaNamer {
  /** A schema as the document shows it: named shapes inside it replaced by $refs. */
  ref(schema: TSchema | Json): Json;
  /**
   * An error body used by several operations, named by its codes (`ErrorEnvelope_2005_2007`):
   * the same shape, so one component; each still lists exactly the codes of its operations.
   */
  shared(schema: TSchema, name: string): Json;
  /** components.schemas: every named shape, with the named shapes inside it as $refs. */
  components(): Record<string, Json>;
}

export function schemaNamer(named: Readonly<Record<string, TSchema>> = NAMED_SCHEMAS, unreferenced: Readonly<Record<string, TSchema>> = UNREFERENCED_SCHEMAS): SchemaNamer {
  const byKey = new Map<string, { name: string; schema: JsonObject }>();
  for (const [name, s] of Object.entries(named)) {
    const schema = plain(s);
    if (!isObject(schema)) throw new Error(`named schema ${name} is not an object`);
    const key = withoutDescription(schema);
    const clash = byKey.get(key);
    if (clash) throw new Error(`named schemas ${clash.name} and ${name} are the same shape`);
    byKey.set(key, { name, schema });
  }

  const walk = (node: Json, root: boolean): Json => {
    if (Array.isArray(node)) return node.map((n) => walk(n, false));
    if (!isObject(node)) return node;
    if (!root) {
      const hit = byKey.get(withoutDescription(node));
      // A use without a description of a shape that has one would gain it through the $ref: leave it inline.
      if (hit && (node.description === hit.schema.description || node.description !== undefined)) {
        return node.description === hit.schema.description ? { $ref: REF_PREFIX + hit.name } : { $ref: REF_PREFIX + hit.name, description: node.description! };
      }
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v, false)]));
  };

  const shared = new Map<string, { key: string; schema: Json }>();
  return {
    ref: (schema) => walk(plain(schema), false),
    shared: (s, name) => {
      const schema = plain(s);
      const key = JSON.stringify(schema);
      const before = shared.get(name);
      if (before && before.key !== key) throw new Error(`two different shapes named ${name}`);
      shared.set(name, { key, schema: walk(schema, true) });
      return { $ref: REF_PREFIX + name };
    },
    components: () => ({
      ...Object.fromEntries([...shared].map(([name, { schema }]) => [name, schema])),
      ...Object.fromEntries([...byKey.values()].map(({ name, schema }) => [name, walk(schema, true)])),
      ...Object.fromEntries(Object.entries(unreferenced).map(([name, s]) => [name, walk(plain(s), true)])),
    }),
  };
}
