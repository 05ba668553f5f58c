import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';
import { projectRoot } from '../support/server-process.js';

/**
 * On Node 24 a better-sqlite3 Statement or Database that the garbage collector
 * finalizes can abort the process (sqlite-handles.ts). The store runs in a
 * process of its own here, so that an abort fails this test instead of
 * killing the test runner: it opens and closes stores (file and memory, with
 * the checkpointer's worker), then allocates enough to make V8 collect the old
 * generation several times over.
 */
const SCRIPT = `
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
const { openDatabase } = await import(${JSON.stringify(path.join(projectRoot, 'src/store/db.ts'))});
const { sql } = await import('kysely');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-handles-'));
// The checkpointer's worker does not hold the event loop open (the service's server does).
const alive = setInterval(() => {}, 1_000);
try {
  for (let round = 0; round < 6; round++) {
    const store = await openDatabase({ sqlitePath: round % 2 ? ':memory:' : path.join(dir, 'db' + round + '.sqlite') });
    for (let i = 0; i < 100; i++) await sql\`select \${i} as n\`.execute(store.db);
    await store.close();
  }
  let keep = [];
  for (let i = 0; i < 400_000; i++) {
    keep.push(new Array(100).fill(i));
    if (keep.length > 5_000) keep = [];
  }
} finally {
  clearInterval(alive);
  fs.rmSync(dir, { recursive: true, force: true });
}
console.log('survived');
`;

it('keeps the process alive when collections run after stores were opened and closed', () => {
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], {
    cwd: projectRoot,
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect({ signal: child.signal, status: child.status, stderr: child.stderr.slice(0, 400) }).toEqual({ signal: null, status: 0, stderr: '' });
  expect(child.stdout).toContain('survived');
});
