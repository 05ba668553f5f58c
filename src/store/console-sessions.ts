/** Console sessions (migration 009): looked up by the sha256 of the cookie's token, never the token. */
import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

export interface ConsoleSession {
  idHash: string;
  kind: 'tenant' | 'operator';
  tenantId: string | null;
  /** A tenant's session: the signing secret it was signed in with (migration 031). */
  secretId: string | null;
  csrfToken: string;
  createdAt: number;
  expiresAt: number;
}

type Row = DB['console_sessions'];
const toSession = (r: Row): ConsoleSession => ({
  idHash: r.id_hash,
  kind: r.kind,
  tenantId: r.tenant_id,
  secretId: r.secret_id,
  csrfToken: r.csrf_token,
  createdAt: Number(r.created_at),
  expiresAt: Number(r.expires_at),
});

export function consoleSessionsRepo(db: Kysely<DB>) {
  return {
    async insert(s: ConsoleSession): Promise<void> {
      await db
        .insertInto('console_sessions')
        .values({
          id_hash: s.idHash,
          kind: s.kind,
          tenant_id: s.tenantId,
          secret_id: s.secretId,
          csrf_token: s.csrfToken,
          created_at: s.createdAt,
          expires_at: s.expiresAt,
        })
        .execute();
    },
    /**
     * The session, while it has not expired, and for a tenant's while the secret it was signed in
     * with still works (the current secret, or a replaced one inside its overlap).
     */
    async find(idHash: string, nowMs: number): Promise<ConsoleSession | undefined> {
      const r = await db
        .selectFrom('console_sessions as c')
        .leftJoin('account_secrets as s', 's.id', 'c.secret_id')
        .selectAll('c')
        .where('c.id_hash', '=', idHash)
        .where('c.expires_at', '>', nowMs)
        .where((eb) =>
          eb.or([
            eb('c.kind', '=', 'operator'),
            eb.and([eb('s.id', 'is not', null), eb.or([eb('s.expires_at', 'is', null), eb('s.expires_at', '>', nowMs)])]),
          ]),
        )
        .executeTakeFirst();
      return r && toSession(r);
    },
    /** The session now stands on `secretId` (the one it rotated to). */
    async moveToSecret(idHash: string, secretId: string): Promise<void> {
      await db.updateTable('console_sessions').set({ secret_id: secretId }).where('id_hash', '=', idHash).execute();
    },
    async delete(idHash: string): Promise<void> {
      await db.deleteFrom('console_sessions').where('id_hash', '=', idHash).execute();
    },
    /** Ends every session of these tenants (a suspension, an account no longer verified). */
    async deleteForTenants(tenantIds: string[]): Promise<void> {
      if (tenantIds.length === 0) return;
      await db.deleteFrom('console_sessions').where('tenant_id', 'in', tenantIds).execute();
    },
    /** Expired rows go at each sign-in: the table holds live sessions and a few stale ones. */
    async deleteExpired(nowMs: number): Promise<void> {
      await db.deleteFrom('console_sessions').where('expires_at', '<=', nowMs).execute();
    },
  };
}

export type ConsoleSessionsRepo = ReturnType<typeof consoleSessionsRepo>;
