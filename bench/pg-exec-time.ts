/**
 * Where the PostgreSQL server's time goes under the send load: bench/send.ts's load (`/send`,
 * text, an existing conversation, 50 connections) on PostgreSQL, with pg_stat_statements reset
 * after the warm-up; per statement, calls per send and execution time per send and per call.
 * Execution only (the server's parse, bind, commit and socket work are not in it); compare the
 * sum with the server's CPU per send that `bench/send.ts --postgres` implies.
 *   npx tsx bench/pg-exec-time.ts [--seconds 8]
 */
import pg from 'pg';
import { load } from './lib/harness.js';
import { startSendTarget } from './lib/send-target.js';
import { startPostgres } from '../test/support/postgres-server.js';
import { freePort } from '../test/support/ports.js';

const i = process.argv.indexOf('--seconds');
const seconds = i >= 0 ? Number(process.argv[i + 1]) : 8;

const server = await startPostgres(await freePort(), { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all' });
const target = await startSendTarget(await freePort(), { DATABASE_URL: server.url }).catch(async (err: unknown) => {
  await server.stop();
  throw err;
});
const admin = new pg.Client({ connectionString: server.url });
try {
  await admin.connect();
  await admin.query('create extension if not exists pg_stat_statements');
  await load('warm-up', { ...target.request, duration: 2, connections: 50 });
  await admin.query('select pg_stat_statements_reset()');
  const r = await load('send (postgres)', { ...target.request, duration: seconds, connections: 50 });
  const { rows } = await admin.query<{ calls: string; ms: number; query: string }>(
    `select calls, total_exec_time as ms, query from pg_stat_statements
      where query not like '%pg_stat_statements%' order by total_exec_time desc limit 15`,
  );
  const sends = r.rps * seconds;
  console.log(`${Math.round(r.rps)} sends/s, p99 ${r.p99.toFixed(1)} ms (${r.client}); execution time per send by statement:`);
  let total = 0;
  for (const row of rows) {
    const calls = Number(row.calls);
    total += row.ms;
    const perSend = (1000 * row.ms) / sends;
    console.log(`${(calls / sends).toFixed(2).padStart(6)} calls  ${perSend.toFixed(1).padStart(6)} µs/send  ${((1000 * row.ms) / calls).toFixed(1).padStart(7)} µs/call  ${row.query.replace(/\s+/g, ' ').slice(0, 100)}`);
  }
  console.log(`total (these statements): ${((1000 * total) / sends).toFixed(1)} µs per send`);
} finally {
  await admin.end().catch(() => {});
  await target.proc.stop();
  await server.stop();
}
