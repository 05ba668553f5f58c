/**
 * POST /api/v1/send on PostgreSQL with the hot paths' statements pipelined on N
 * shared connections (BLUELINE_PG_PIPELINE_CONNECTIONS) or through the pool (0),
 * alternating in one run so that a loaded machine weighs on both alike. Each
 * variant gets a fresh PostgreSQL server; 50 connections, 6 s after a 2-s warm-up.
 *   PIPES=0,2,0,2,4 npx tsx bench/pg-pipeline.ts
 *   PG_DURABLE=1 PIPES=2,8,2,8 npx tsx bench/pg-pipeline.ts   # PostgreSQL's durable defaults
 * PG_DURABLE=1 runs the server with fsync, synchronous_commit and full_page_writes on, as a
 * production server has them (the test server turns them off): each commit waits for its WAL
 * flush. Its data directory is under the OS temp dir: check that it is a disk, not tmpfs.
 */
import { load } from './lib/harness.js';
import { startSendTarget } from './lib/send-target.js';
import { startPostgres } from '../test/support/postgres-server.js';
import { freePort } from '../test/support/ports.js';

const durable: Record<string, string> = process.env.PG_DURABLE === '1' ? { fsync: 'on', synchronous_commit: 'on', full_page_writes: 'on' } : {};
for (const n of (process.env.PIPES ?? '0,2,0,2').split(',')) {
  const pg = await startPostgres(await freePort(), durable);
  const target = await startSendTarget(await freePort(), { DATABASE_URL: pg.url, BLUELINE_PG_PIPELINE_CONNECTIONS: n });
  try {
    await load('warm-up', { ...target.request, duration: 2, connections: 50 });
    const r = await load(`pipeline ${n}`, { ...target.request, connections: 50, duration: 6 });
    const cpu = `server ${r.serverCores?.toFixed(2)} cores (main thread ${r.serverLoopCores?.toFixed(2)})`;
    console.log(`pipelined connections ${n}: ${r.rps.toFixed(0)} req/s  p99 ${r.p99.toFixed(1)} ms  ${cpu}`);
  } finally {
    await target.proc.stop();
    await pg.stop();
  }
}
