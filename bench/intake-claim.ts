/**
 * The intake claim (store/intake.ts) against a backlog: one claim of 32 rows, and the loop's
 * nextDueAt, with 2,000 / 8,000 / 32,000 pending rows over two lines, on SQLite (a file) and
 * PostgreSQL. A backlog is what a line's catch-up after an outage leaves: the claim must not
 * grow with it. Reported, no target.
 *   npx tsx bench/intake-claim.ts
 */
import { sql } from 'kysely';
import type { Store } from '../src/store/index.js';
import { onSqliteThenPostgres } from './lib/stores.js';

const SIZES = [2_000, 8_000, 32_000];
const NOW = 10_000_000;

async function measure(label: string, store: Store) {
  const db = store.database.db;
  for (const n of SIZES) {
    await sql`delete from inbound_intake`.execute(db);
    for (let from = 0; from < n; from += 500) {
      const rows = Array.from({ length: Math.min(500, n - from) }, (_, k) => {
        const i = from + k;
        return { id: String(i).padStart(8, '0'), line_id: i % 2 ? 'line-a' : 'line-b', body: 'x', state: 'pending' as const, attempts: 0, next_attempt_at: 1000 + i, lease_until: null, locked_by: null, last_error: null, created_at: 1000 + i };
      });
      await db.insertInto('inbound_intake').values(rows).execute();
    }
    if (store.database.dialect === 'postgres') await sql`analyze inbound_intake`.execute(db);
    let claimMs = 0;
    for (let k = 0; k < 10; k++) {
      const t = performance.now();
      const claimed = await store.intake.claim('bench', NOW, 60_000, 32);
      claimMs += performance.now() - t;
      if (claimed.length !== 32) throw new Error(`claimed ${claimed.length}, not 32`);
      await db.deleteFrom('inbound_intake').where('id', 'in', claimed.map((r) => r.id)).execute(); // processed
    }
    const t = performance.now();
    for (let k = 0; k < 5; k++) await store.intake.nextDueAt();
    console.log(`${label.padEnd(10)} ${String(n).padStart(6)} pending: claim of 32 ${(claimMs / 10).toFixed(2).padStart(6)} ms, nextDueAt ${((performance.now() - t) / 5).toFixed(2).padStart(6)} ms`);
  }
}

await onSqliteThenPostgres(measure);
