/**
 * The layering rules of docs/architecture.md, checked over the import graph of src/:
 * - domain/ imports nothing from http/ or delivery/ (delivery may import the domain);
 * - store/, drivers/ and blobs/ import nothing from domain/ or http/;
 * - a wire shape is declared in src/contract/ alone: no `Type.Object(` in http/, domain/ or crm/;
 * - crm/ (the HubSpot integration's domain) imports nothing from http/, delivery/ or contract/: it
 *   returns domain results and http/present/hubspot-*.ts maps them to the contract's types;
 * - no import cycle between top-level folders (a file directly in src/ counts as its own);
 * - better-sqlite3 is opened only through store/sqlite-handles.ts, and its statements made only
 *   there (on Node 24 a statement or database left to the garbage collector can abort the
 *   process; that file keeps them alive).
 * Type-only imports count: a type from the wrong layer is the same arrow.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve('src');

/** Every static, re-exported, side-effect and dynamic import specifier of a source file. */
function specifiers(source: string): string[] {
  const found: string[] = [];
  const patterns = [/\b(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g, /\bimport\s*['"]([^'"]+)['"]/g, /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g];
  for (const re of patterns) for (const m of source.matchAll(re)) found.push(m[1]!);
  return found;
}

/** A value import of better-sqlite3 (a type-only import opens nothing). */
const OPENS_SQLITE = /\bimport\s+(?!type\b)[^'"`;]*?\bfrom\s*['"]better-sqlite3['"]|\b(?:require|import)\(\s*['"]better-sqlite3['"]\s*\)/;
const SQLITE_HANDLES = 'store/sqlite-handles.ts';
/** A statement made on a handle's database itself (its prepare, pragma or iterate), which the handle does not keep. */
const LOOSE_STATEMENT = /\.db\s*\.\s*(?:prepare|pragma|iterate)\s*\(/;

/** Files (paths relative to their tree) that open SQLite, or make its statements, other than through sqlite-handles.ts. */
export function rawSqlite(files: ReadonlyMap<string, string>): string[] {
  const found: string[] = [];
  for (const [file, source] of files) {
    if (file === SQLITE_HANDLES) continue;
    if (OPENS_SQLITE.test(source)) found.push(`${file} opens better-sqlite3 directly: use openSqlite (${SQLITE_HANDLES})`);
    if (LOOSE_STATEMENT.test(source)) found.push(`${file} makes a statement the collector can take: use the handle's statement() or exec() (${SQLITE_HANDLES})`);
  }
  return found;
}

/** A file's top-level unit: its folder under src/, or the file itself when it sits in src/. */
const unitOf = (file: string) => (file.includes('/') ? file.slice(0, file.indexOf('/')) : file);

/** `from` (relative to src/) importing `spec`: the imported file relative to src/, or undefined outside src/. */
function resolve(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec)).replace(/\.js$/, '.ts');
  return target.startsWith('..') ? undefined : target;
}

/** Every rule broken by a tree of sources (paths relative to src/). */
export function violations(files: ReadonlyMap<string, string>): string[] {
  const found: string[] = [];
  const edges = new Map<string, Set<string>>();
  for (const [file, source] of files) {
    const from = unitOf(file);
    for (const spec of specifiers(source)) {
      const target = resolve(file, spec);
      if (!target) continue;
      const to = unitOf(target);
      if (from === 'domain' && (to === 'http' || to === 'delivery')) found.push(`${file} imports ${target}: domain/ never imports ${to}/`);
      if (['store', 'drivers', 'blobs'].includes(from) && (to === 'domain' || to === 'http')) found.push(`${file} imports ${target}: ${from}/ never imports ${to}/`);
      if (from === 'crm' && ['http', 'delivery', 'contract'].includes(to)) found.push(`${file} imports ${target}: crm/ returns domain results; http/present/ maps them to the wire`);
      if (from !== to) (edges.get(from) ?? edges.set(from, new Set()).get(from)!).add(to);
    }
    if ((from === 'http' || from === 'domain' || from === 'crm') && /\bType\.Object\(/.test(source)) {
      found.push(`${file} declares a wire shape (Type.Object): it belongs in src/contract/`);
    }
  }
  for (const cycle of cycles(edges)) found.push(`import cycle between ${cycle.join(', ')}`);
  found.push(...rawSqlite(files));
  return found;
}

/** The strongly connected groups of more than one unit (Tarjan), each sorted. */
function cycles(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return groups;
}

function sourceTree(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const rel = entry.split(path.sep).join('/');
    if (rel.split('/').includes('node_modules')) continue;
    if (/\.(ts|tsx|js|mjs)$/.test(rel)) files.set(rel, fs.readFileSync(path.join(dir, entry), 'utf8'));
  }
  return files;
}

describe('the import rules', () => {
  it('hold for src/', () => {
    const tree = sourceTree(SRC);
    expect(tree.size).toBeGreaterThan(100);
    expect(violations(tree)).toEqual([]);
  });

  it('hold for the tests, benches and scripts too: nothing opens SQLite but sqlite-handles.ts', () => {
    for (const dir of ['test', 'bench', 'scripts'].filter((d) => fs.existsSync(d))) {
      expect(rawSqlite(sourceTree(path.resolve(dir)))).toEqual([]);
    }
  });

  it('catch crm/ reaching for the wire: contract, http or delivery imports and TypeBox shapes', () => {
    const found = violations(
      new Map([
        ['crm/hubspot/card.ts', "import type { HubSpotCardResponse } from '../../contract/hubspot-card.js';\nimport { publicMessage } from '../../http/present/messages.js';"],
        ['crm/hubspot/push.ts', "import { attemptDelivery } from '../../delivery/attempt.js';"],
        ['crm/hubspot/shape.ts', "import { Type } from 'typebox';\nexport const View = Type.Object({ portal_id: Type.String() });"],
        ['crm/hubspot/fine.ts', "import type { Store } from '../../store/index.js';\nimport { DomainError } from '../../errors/registry.js';"],
      ]),
    );
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringContaining('crm/hubspot/card.ts imports contract/hubspot-card.ts'),
        expect.stringContaining('crm/hubspot/card.ts imports http/present/messages.ts'),
        expect.stringContaining('crm/hubspot/push.ts imports delivery/attempt.ts'),
        expect.stringContaining('crm/hubspot/shape.ts declares a wire shape'),
      ]),
    );
    expect(found.filter((f) => f.startsWith('crm/hubspot/fine.ts'))).toEqual([]);
  });

  it('catch each kind of break (so the check above can fail)', () => {
    const tree = new Map([
      ['domain/events/service.ts', "import { attemptDelivery } from '../../delivery/attempt.js';\nimport type { X } from '../../http/route.js';"],
      ['delivery/attempt.ts', "import { isSuccess } from '../domain/events/attempts.js';"],
      ['store/events.ts', "export { y } from '../domain/ids.js';"],
      ['drivers/simulator/index.ts', "const m = await import('../../http/errors.js');"],
      ['blobs/index.ts', "import '../domain/x.js';\nimport fs from 'node:fs';"],
      ['http/routes/x.ts', "import { Type } from 'typebox';\nexport const Body = Type.Object({ a: Type.String() });"],
      ['contract/x.ts', "import { Type } from 'typebox';\nexport const Fine = Type.Object({});"],
      // Split, so that this file's own text does not open SQLite in the check above.
      ['store/fixture.ts', "import Database from " + "'better-sqlite3';"],
      ['store/types-only.ts', "import type SqliteDatabase from " + "'better-sqlite3';"],
      ['store/sqlite-handles.ts', "import SqliteDatabase from " + "'better-sqlite3';"],
      ['store/loose.ts', "const n = handle.db" + ".prepare('select 1').get();"],
    ]);
    const found = violations(tree);
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringContaining('domain/events/service.ts imports delivery/attempt.ts'),
        expect.stringContaining('domain/events/service.ts imports http/route.ts'),
        expect.stringContaining('store/events.ts imports domain/ids.ts'),
        expect.stringContaining('drivers/simulator/index.ts imports http/errors.ts'),
        expect.stringContaining('blobs/index.ts imports domain/x.ts'),
        expect.stringContaining('http/routes/x.ts declares a wire shape'),
        'import cycle between delivery, domain',
        expect.stringContaining('store/fixture.ts opens better-sqlite3 directly'),
        expect.stringContaining('store/loose.ts makes a statement the collector can take'),
      ]),
    );
    expect(found.filter((f) => ['contract/x.ts', 'store/types-only.ts', 'store/sqlite-handles.ts'].some((file) => f.startsWith(file)))).toEqual([]);
    expect(found).toHaveLength(9);
  });
});
