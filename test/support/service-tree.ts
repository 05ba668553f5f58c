/**
 * The service's sources as plain JavaScript, transpiled once per test run (esbuild, about a second)
 * for the tests that start it in processes of their own: a start through tsx's loader spends
 * ~1.2 s more (it transpiles each module on the way), and the suite starts the service dozens of
 * times. The tree sits beside `src/` at the same depth (`.test-dist-<pid>/`), as `dist/` does, so
 * paths the service finds from its own files (the console's build, node_modules) resolve the same.
 * Types are checked by `tsc` in `npm test`; this is the same code without them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { running } from '../../src/store/sqlite-owner.js';

const PREFIX = '.test-dist-';

export interface ServiceTree {
  dir: string;
  /** Transpiles the sources again (watch mode reruns: the sources may have changed). */
  rebuild(): Promise<void>;
  remove(): void;
}

export async function buildServiceTree(root: string): Promise<ServiceTree> {
  removeStale(root);
  const src = path.join(root, 'src');
  const dir = path.join(root, `${PREFIX}${process.pid}`);
  const transpile = async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    const entryPoints = fs
      .readdirSync(src, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
      .map((f) => path.join(src, f));
    // Inline source maps: a stack printed with --enable-source-maps names the source's lines.
    await build({ entryPoints, outdir: dir, outbase: src, format: 'esm', platform: 'node', target: 'node20', sourcemap: 'inline', logLevel: 'warning' });
  };
  await transpile();
  let pending: Promise<void> | undefined;
  return {
    dir,
    rebuild: () => (pending ??= transpile().finally(() => (pending = undefined))),
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** Trees left by runs that were killed before their teardown (their process is gone). */
function removeStale(root: string) {
  for (const name of fs.readdirSync(root)) {
    if (!name.startsWith(PREFIX)) continue;
    const pid = Number(name.slice(PREFIX.length));
    if (Number.isInteger(pid) && pid !== process.pid && running(pid)) continue;
    fs.rmSync(path.join(root, name), { recursive: true, force: true });
  }
}
