/** Console sessions (migration 009): looked up by the sha256 of the cookie's token, never the token. */
import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

export interface ConsoleSession {
  idHash: string;
  kind: 'tenant' | 'operator';
  tenantId: string | null;
  csrfToken: string;
  createdAt: number;
  expiresAt: number;
}

type Row = DB['console_sessions'];
const toSession = (r: Row): ConsoleSession => ({
  idHash: r.id_hash,
  kind: r.kind,
  tenantId: r.tenant_id,
  csrfToken: r.csrf_token,
  createdAt: Number(r.created_at),
  expiresAt: Number(r.expires_at),
});

export function consoleSessionsRepo(db: Kysely<DB>) {
  return {
    async insert(s: ConsoleSession): Promise<void> {
      await db
        .insertInto('console_sessions')
        .values({ id_hash: s.idHash, kind: s.kind, tenant_id: s.tenantId, csrf_token: s.csrfToken, created_at: s.createdAt, expires_at: s.expiresAt })
        .execute();
    },
    /** The session, while it has not expired. */
    async find(idHash: string, nowMs: number): Promise<ConsoleSession | undefined> {
      const r = await db.selectFrom('console_sessions').selectAll().where('id_hash', '=', idHash).where('expires_at', '>', nowMs).executeTakeFirst();
      return r && toSession(r);
    },
    async delete(idHash: string): Promise<void> {
      await db.deleteFrom('console_sessions').where('id_hash', '=', idHash).execute();
    },
    /** Expired rows go at each sign-in: the table holds live sessions and a few stale ones. */
    async deleteExpired(nowMs: number): Promise<void> {
      await db.deleteFrom('console_sessions').where('expires_at', '<=', nowMs).execute();
    },
  };
}

export type ConsoleSessionsRepo = ReturnType<typeof consoleSessionsRepo>;
