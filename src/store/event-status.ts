/**
 * An event's status from its delivery jobs: delivered once any job delivered (keeping the first
 * delivered_at), failed when every job failed, pending while any is still due. An event without
 * jobs (dev inbox only, or no destination) keeps its status.
 *
 * On PostgreSQL several transactions settle one event at about the same time (two workers
 * finishing its jobs, a replay while a worker finishes). Under READ COMMITTED a statement that
 * waited for the event row's lock updates the row as the other transaction left it, but reads
 * delivery_jobs as they were when it started: written last, it would set a status from a job
 * state that has changed since, and nothing settles the event again. So the statement writes
 * only if the row is still the version its snapshot saw (`xmin`: the transaction that wrote it;
 * any later write makes a new version); when another transaction wrote it in between, the event
 * is settled again after taking the row's lock, by a statement that starts after every writer
 * before it committed. Then whoever writes last has read every job change made before its
 * write: each change is followed by a settling write, and a write made after this statement's
 * snapshot but before its lock would have changed the version.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.js';
import type { Dialect } from './db.js';
import { first, prepared } from './prepared.js';

type Params = { id: string; nowMs: number };

const delivered = sql`exists (select 1 from delivery_jobs j where j.event_ref = events.id and j.state = 'delivered')`;
/** The SET of a settling update (`events` unaliased). */
const statusFromJobs = (nowMs: unknown) => sql`
  status = case
    when ${delivered} then 'delivered'
    when not exists (select 1 from delivery_jobs j where j.event_ref = events.id and j.state <> 'failed') then 'failed'
    else 'pending' end,
  delivered_at = case when ${delivered} then coalesce(delivered_at, ${nowMs}) else null end`;

/** SQLite's settle (one writer, nothing to overtake it), and PostgreSQL's once the row is locked. */
const settleQ = prepared<Params>(['id', 'nowMs'], (_db, p) =>
  sql`update events set ${statusFromJobs(p.nowMs)} where id = ${p.id} and exists (select 1 from delivery_jobs j where j.event_ref = events.id)`,
);
/** PostgreSQL: settles unless another transaction wrote the row since this statement's snapshot (`overtaken` then). */
const settleUnlessOvertakenQ = prepared<Params, { overtaken: number }>(['id', 'nowMs'], (_db, p) => sql`
  with seen as (
    select xmin as version from events where id = ${p.id} and exists (select 1 from delivery_jobs j where j.event_ref = ${p.id})),
  settled as (
    update events set ${statusFromJobs(p.nowMs)} where id = ${p.id} and events.xmin = (select version from seen)
    returning 1)
  select (select count(*) from seen)::int - (select count(*) from settled)::int as overtaken`);
const lockEventQ = prepared<{ id: string }>(['id'], (_db, p) => sql`select 1 from events where id = ${p.id} for update`);

/**
 * One statement, as before; on PostgreSQL, when another transaction wrote the event row while
 * it ran (rare), a transaction that locks the row, then settles it. That transaction may wait
 * for a pipelined statement (pg-pipeline.ts) that holds the row, but such a statement has no
 * lock left to wait for, so the wait ends.
 */
export async function settleEventStatus(db: Kysely<DB>, dialect: Dialect, id: string, nowMs: number): Promise<void> {
  if (dialect === 'sqlite') {
    await settleQ(db, { id, nowMs });
    return;
  }
  if (!(await first(settleUnlessOvertakenQ, db, { id, nowMs }))?.overtaken) return;
  const locked = async (tx: Kysely<DB>) => {
    await lockEventQ(tx, { id });
    // A new statement: under READ COMMITTED its snapshot is taken now, after the lock.
    await settleQ(tx, { id, nowMs });
  };
  await (db.isTransaction ? locked(db) : db.transaction().execute(locked));
}
