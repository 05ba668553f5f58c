import { numOrNull } from './rows.js';
import type { Kysely } from 'kysely';
import type { DB } from './schema.js';
import type { SecretBox } from './secret-box.js';
import type { Dialect } from './db.js';

export interface Account {
  id: string;
  name: string;
  multi_tenant: boolean;
  email_verified: boolean;
  created_at: number;
}

type Row = DB['accounts'];
const toAccount = (r: Row): Account => ({
  id: r.id,
  name: r.name,
  multi_tenant: r.multi_tenant === 1,
  email_verified: r.email_verified === 1,
  created_at: Number(r.created_at),
});

export function accountsRepo(db: Kysely<DB>, dialect: Dialect, box: SecretBox) {
  return {
    async insert(a: Account, secret: { id: string; plain: string }): Promise<void> {
      await db.transaction().execute(async (tx) => {
        await tx
          .insertInto('accounts')
          .values({
            id: a.id,
            name: a.name,
            multi_tenant: a.multi_tenant ? 1 : 0,
            email_verified: a.email_verified ? 1 : 0,
            created_at: a.created_at,
          })
          .execute();
        await tx
          .insertInto('account_secrets')
          .values({
            id: secret.id,
            account_id: a.id,
            lookup_hash: box.lookupHash(secret.plain),
            secret_enc: box.seal(secret.plain),
            created_at: a.created_at,
            expires_at: null,
          })
          .execute();
      });
    },

    async get(id: string): Promise<Account | undefined> {
      const r = await db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
      return r && toAccount(r);
    },

    async list(): Promise<Account[]> {
      const rows = await db.selectFrom('accounts').selectAll().orderBy('created_at').orderBy('id').execute();
      return rows.map(toAccount);
    },

    async count(): Promise<number> {
      const r = await db.selectFrom('accounts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
      return Number(r?.n ?? 0);
    },

    async update(id: string, patch: Partial<Pick<Account, 'name' | 'multi_tenant' | 'email_verified'>>) {
      const values: Partial<Row> = {};
      if (patch.name !== undefined) values.name = patch.name;
      if (patch.multi_tenant !== undefined) values.multi_tenant = patch.multi_tenant ? 1 : 0;
      if (patch.email_verified !== undefined) values.email_verified = patch.email_verified ? 1 : 0;
      if (Object.keys(values).length > 0) await db.updateTable('accounts').set(values).where('id', '=', id).execute();
      return this.get(id);
    },

    /** The account whose live (current or in-overlap) secret is exactly `plain`. */
    async findBySecret(plain: string, nowMs: number): Promise<Account | undefined> {
      const found = await this.findSecretOwner(plain);
      return found && (found.expires_at === null || found.expires_at > nowMs) ? found.account : undefined;
    },

    /** The account owning secret `plain`, with the secret's id and when it stops working (null: never). */
    async findSecretOwner(plain: string): Promise<{ account: Account; secret_id: string; expires_at: number | null } | undefined> {
      const r = await db
        .selectFrom('account_secrets as s')
        .innerJoin('accounts as a', 'a.id', 's.account_id')
        .selectAll('a')
        .select(['s.id as secret_id', 's.expires_at'])
        .where('s.lookup_hash', '=', box.lookupHash(plain))
        .executeTakeFirst();
      if (!r) return undefined;
      const { expires_at, secret_id, ...account } = r;
      return { account: toAccount(account), secret_id, expires_at: numOrNull(expires_at) };
    },

    /** When the account's secret `secretId` stops working (null: it is the current one); undefined: no such secret. */
    async secretExpiry(accountId: string, secretId: string): Promise<number | null | undefined> {
      const r = await db.selectFrom('account_secrets').select('expires_at').where('id', '=', secretId).where('account_id', '=', accountId).executeTakeFirst();
      return r === undefined ? undefined : numOrNull(r.expires_at);
    },

    /** Live secrets in plaintext, newest first: HMAC checks try each. */
    async liveSecrets(accountId: string, nowMs: number): Promise<string[]> {
      const all = await this.secretsWithExpiry(accountId, nowMs);
      return all.map((s) => s.plain);
    },

    /** Secrets alive at `nowMs`, newest first, with when each stops working. */
    async secretsWithExpiry(accountId: string, nowMs: number): Promise<{ id: string; plain: string; expires_at: number | null }[]> {
      const rows = await db
        .selectFrom('account_secrets')
        .select(['id', 'secret_enc', 'expires_at'])
        .where('account_id', '=', accountId)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', nowMs)]))
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
      return rows.map((r) => ({ id: r.id, plain: box.open(r.secret_enc), expires_at: numOrNull(r.expires_at) }));
    },

    /**
     * Every secret alive at `nowMs` of every account, with its account: the candidates an HMAC
     * request may have been signed with when it does not name its tenant's account.
     */
    async signerSecrets(nowMs: number): Promise<{ account: Account; secret_id: string; plain: string; expires_at: number | null }[]> {
      const rows = await db
        .selectFrom('account_secrets as s')
        .innerJoin('accounts as a', 'a.id', 's.account_id')
        .selectAll('a')
        .select(['s.id as secret_id', 's.secret_enc', 's.expires_at'])
        .where((eb) => eb.or([eb('s.expires_at', 'is', null), eb('s.expires_at', '>', nowMs)]))
        // Single-tenant accounts first: only they can be served without the tenant header.
        .orderBy('a.multi_tenant')
        .orderBy('a.created_at')
        .orderBy('a.id')
        .orderBy('s.created_at', 'desc')
        .execute();
      return rows.map(({ secret_enc, expires_at, secret_id, ...account }) => ({ account: toAccount(account), secret_id, plain: box.open(secret_enc), expires_at: numOrNull(expires_at) }));
    },

    /** When each of the account's secrets was issued and stops working (null: never), newest first; never the secrets. */
    async secretTimes(accountId: string): Promise<{ created_at: number; expires_at: number | null }[]> {
      const rows = await db
        .selectFrom('account_secrets')
        .select(['created_at', 'expires_at'])
        .where('account_id', '=', accountId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
      return rows.map((r) => ({ created_at: Number(r.created_at), expires_at: numOrNull(r.expires_at) }));
    },

    /**
     * New current secret; the one it replaces lives on until `overlapUntil`. Earlier secrets keep
     * their own end, unless `endEarlier` (an overlap of 0: a leak response) ends them all now.
     * With `replacing`, only that secret may be the one replaced: false, and nothing changed,
     * when it is not the current secret (already replaced, by a rotation racing this one too).
     * Runs in the caller's transaction, or in its own.
     */
    async rotateSecret(
      accountId: string,
      next: { id: string; plain: string },
      nowMs: number,
      overlapUntil: number,
      opts: { replacing?: string; endEarlier?: boolean } = {},
    ): Promise<boolean> {
      const steps = async (tx: Kysely<DB>): Promise<boolean> => {
        // Rotations of one account wait for each other (PostgreSQL), so two never both see a current secret.
        if (dialect === 'postgres') await tx.selectFrom('accounts').select('id').where('id', '=', accountId).forUpdate().execute();
        let replace = tx.updateTable('account_secrets').set({ expires_at: overlapUntil }).where('account_id', '=', accountId).where('expires_at', 'is', null);
        if (opts.replacing !== undefined) replace = replace.where('id', '=', opts.replacing);
        const replaced = await replace.executeTakeFirst();
        if (opts.replacing !== undefined && Number(replaced.numUpdatedRows) === 0) return false;
        if (opts.endEarlier) {
          await tx.updateTable('account_secrets').set({ expires_at: nowMs }).where('account_id', '=', accountId).where('expires_at', '>', nowMs).execute();
        }
        await tx
          .insertInto('account_secrets')
          .values({
            id: next.id,
            account_id: accountId,
            lookup_hash: box.lookupHash(next.plain),
            secret_enc: box.seal(next.plain),
            created_at: nowMs,
            expires_at: null,
          })
          .execute();
        return true;
      };
      return db.isTransaction ? steps(db) : db.transaction().execute(steps);
    },
  };
}

export type AccountsRepo = ReturnType<typeof accountsRepo>;
