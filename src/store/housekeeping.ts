/**
 * Deletes rows that are dead past their expiry (and marks the files of attachments past retention
 * deleted, their rows kept), a bounded batch per call: each call is one short
 * statement (a brief SQLite write, PostgreSQL row locks held for one small delete), and the
 * condition is checked again in the statement itself, so two passes at once delete each row once
 * and never one that came alive meanwhile. Callers loop while a batch comes back full.
 */
import { sql, type Kysely, type SqlBool } from 'kysely';
import type { DB } from './schema.js';
import { SENDING_INDEXED } from './messages.js';

const deleted = (res: { numDeletedRows?: bigint }) => Number(res.numDeletedRows ?? 0n);

export function housekeepingRepo(db: Kysely<DB>) {
  return {
    /**
     * Idempotency records past `expires_at`, except a claim in progress whose lease is live (its
     * request still runs). Records kept for good (HubSpot workflows) expire at MAX_SAFE_INTEGER.
     */
    async deleteExpiredIdempotency(nowMs: number, limit: number): Promise<number> {
      const dead = db
        .selectFrom('idempotency_keys')
        .select(['tenant_id', 'route', 'key'])
        .where('expires_at', '<=', nowMs)
        .where((eb) => eb.or([eb('state', '=', 'done'), eb('lease_until', 'is', null), eb('lease_until', '<=', nowMs)]))
        .limit(limit);
      const res = await db
        .deleteFrom('idempotency_keys')
        .where(sql<SqlBool>`(tenant_id, route, key) in (${dead})`)
        .where('expires_at', '<=', nowMs)
        .where((eb) => eb.or([eb('state', '=', 'done'), eb('lease_until', 'is', null), eb('lease_until', '<=', nowMs)]))
        .executeTakeFirst();
      return deleted(res);
    },

    /** Upload slots never uploaded to whose expiry is at or before `beforeMs` (they hold no blob). */
    async deleteExpiredUploadSlots(beforeMs: number, limit: number): Promise<number> {
      const dead = db.selectFrom('attachments').select('id').where('state', '=', 'pending').where('expires_at', '<=', beforeMs).limit(limit);
      const res = await db.deleteFrom('attachments').where('id', 'in', dead).where('state', '=', 'pending').where('expires_at', '<=', beforeMs).executeTakeFirst();
      return deleted(res);
    },

    /**
     * Uploaded attachments (uploads and inbound media) whose expiry is at or before `beforeMs`
     * and whose file is not yet marked deleted: the files the pass deletes next, oldest first,
     * starting after `after` (the last row of the previous batch) when given.
     */
    async expiredAttachmentFiles(
      beforeMs: number,
      limit: number,
      after?: { expires_at: number; id: string },
    ): Promise<{ id: string; blob_key: string; expires_at: number }[]> {
      let q = db
        .selectFrom('attachments')
        .select(['id', 'blob_key', 'expires_at'])
        .where('file_deleted_at', 'is', null)
        .where('expires_at', '<=', beforeMs)
        .where('state', '=', 'uploaded');
      // The first condition alone narrows the index range; the second breaks ties (one message's media share an expiry).
      if (after) q = q.where('expires_at', '>=', after.expires_at).where((eb) => eb.or([eb('expires_at', '>', after.expires_at), eb('id', '>', after.id)]));
      return q.orderBy('expires_at').orderBy('id').limit(limit).execute();
    },

    /**
     * Marks those attachments' files deleted (their blobs already gone), each once: a pass in
     * another process that marked one first leaves it out of this count.
     */
    async markAttachmentFilesDeleted(ids: readonly string[], beforeMs: number, nowMs: number): Promise<number> {
      if (ids.length === 0) return 0;
      const res = await db
        .updateTable('attachments')
        .set({ file_deleted_at: nowMs })
        .where('id', 'in', ids)
        .where('file_deleted_at', 'is', null)
        .where('state', '=', 'uploaded')
        .where('expires_at', '<=', beforeMs)
        .executeTakeFirst();
      return Number(res.numUpdatedRows ?? 0n);
    },

    /**
     * Staged voice notes never used whose expiry is at or before `beforeMs`, and that no message
     * names: a send that failed gives its note back (unused again), yet its message still names
     * it and the console plays its audio. Looked up on the note's line while it was live (plus
     * `slackMs`), so the check reads a few minutes of one line's messages.
     */
    async expiredUnusedVoiceNotes(beforeMs: number, slackMs: number, limit: number): Promise<{ id: string; blob_key: string }[]> {
      return db
        .selectFrom('voice_notes as vn')
        .select(['vn.id', 'vn.blob_key'])
        .where('vn.used_at', 'is', null)
        .where('vn.expires_at', '<=', beforeMs)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('messages as m')
                .select(sql`1`.as('one'))
                .whereRef('m.line_id', '=', 'vn.line_id')
                .where('m.first_touch', 'in', [0, 1])
                .whereRef('m.sent_at', '>=', 'vn.created_at')
                .where('m.sent_at', '<=', sql<number>`vn.expires_at + ${slackMs}`)
                .where('m.parts', 'like', sql<string>`'%' || vn.id || '%'`),
            ),
          ),
        )
        .limit(limit)
        .execute();
    },

    /** Deletes those notes (their blobs already gone), unless one was used meanwhile. */
    async deleteUnusedVoiceNotes(ids: readonly string[], beforeMs: number): Promise<number> {
      if (ids.length === 0) return 0;
      const res = await db.deleteFrom('voice_notes').where('id', 'in', ids).where('used_at', 'is', null).where('expires_at', '<=', beforeMs).executeTakeFirst();
      return deleted(res);
    },

    /** Which of `keys` a row names (an attachment, uploaded or not, or a staged voice note): one query for a page of keys. */
    async referencedBlobKeys(keys: readonly string[]): Promise<Set<string>> {
      if (keys.length === 0) return new Set();
      const rows = await db
        .selectFrom('attachments')
        .select('blob_key')
        .where('blob_key', 'in', keys)
        .unionAll(db.selectFrom('voice_notes').select('blob_key').where('blob_key', 'in', keys))
        .execute();
      return new Set(rows.map((r) => r.blob_key));
    },

    /** Whether any row names a blob at all (an attachment or a voice note). */
    async namesAnyBlob(): Promise<boolean> {
      const any = async (table: 'attachments' | 'voice_notes') => (await db.selectFrom(table).select('id').limit(1).executeTakeFirst()) !== undefined;
      return (await any('attachments')) || (await any('voice_notes'));
    },

    /** HubSpot install states (OAuth `state`) never consumed, past expiry. */
    async deleteExpiredOAuthStates(nowMs: number, limit: number): Promise<number> {
      const dead = db.selectFrom('hubspot_oauth_states').select('state_hash').where('expires_at', '<=', nowMs).limit(limit);
      const res = await db.deleteFrom('hubspot_oauth_states').where('state_hash', 'in', dead).where('expires_at', '<=', nowMs).executeTakeFirst();
      return deleted(res);
    },

    /**
     * A line's device-log entries (a sandbox line's: what its device was asked to do) logged before
     * `beforeMs`, oldest first, at most `limit`; `idBefore` is the key those entries sort under
     * (their ids begin with the time), so the delete reads a range of the key, never the line's
     * whole log. Never an entry a pending lookup may still read: a message still `sending`, or a
     * group creation not yet settled, looks in the log from its own time less `slackMs`.
     */
    async deleteOldDeviceLog(lineId: string, beforeMs: number, idBefore: string, slackMs: number, limit: number): Promise<number> {
      const FAR = Number.MAX_SAFE_INTEGER;
      const oldestSend = db
        .selectFrom('messages')
        .select((eb) => eb.fn.min('sent_at').as('t'))
        .where(SENDING_INDEXED)
        .where('status', '=', 'sending')
        .where('line_id', '=', lineId);
      const oldestGroup = db.selectFrom('group_creations').select((eb) => eb.fn.min('created_at').as('t')).where('line_id', '=', lineId);
      const old = db
        .selectFrom('simulator_sent')
        .select('id')
        .where('line_id', '=', lineId)
        .where('id', '<', idBefore)
        .where('created_at', '<', beforeMs)
        .where('created_at', '<', sql<number>`coalesce((${oldestSend}), ${FAR}) - ${slackMs}`)
        .where('created_at', '<', sql<number>`coalesce((${oldestGroup}), ${FAR}) - ${slackMs}`)
        .orderBy('id')
        .limit(limit);
      const res = await db.deleteFrom('simulator_sent').where('line_id', '=', lineId).where('id', 'in', old).executeTakeFirst();
      return deleted(res);
    },

    /** Console sessions past expiry (sign-in also deletes them, unbounded; this keeps a quiet console's table small too). */
    async deleteExpiredConsoleSessions(nowMs: number, limit: number): Promise<number> {
      const dead = db.selectFrom('console_sessions').select('id_hash').where('expires_at', '<=', nowMs).limit(limit);
      const res = await db.deleteFrom('console_sessions').where('id_hash', 'in', dead).where('expires_at', '<=', nowMs).executeTakeFirst();
      return deleted(res);
    },
  };
}

export type HousekeepingRepo = ReturnType<typeof housekeepingRepo>;
