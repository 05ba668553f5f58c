/**
 * HubSpot installs (tokens sealed at rest, refreshed by compare-and-set on
 * token_version under a lease), single-use OAuth states, per-portal daily call
 * counts, contact-creation auto-sends (claimed with a lease, like delivery jobs)
 * and the contacts linked to a handle by a send.
 */
import { sql, type Kysely } from 'kysely';
import type { DB, HubSpotAutoSendsTable, HubSpotInstallsTable } from './schema.js';
import type { Dialect } from './db.js';
import type { SecretBox } from './secret-box.js';
import { numOrNull } from './rows.js';
import { isUniqueViolation } from './rows.js';

export type HubSpotInstallStatus = HubSpotInstallsTable['status'];

/** An install without its tokens: what everything but the token keeper sees. */
export interface HubSpotInstall {
  portal_id: string;
  tenant_id: string;
  account_type: string;
  sandbox: boolean;
  status: HubSpotInstallStatus;
  expires_at: number | null;
  token_version: number;
  auto_send: { enabled: boolean; template: string | null; line_id: string | null };
  installed_at: number;
  /** Where the portal's HubSpot UI is (account details' uiDomain); null until learned. */
  ui_domain: string | null;
}

export interface HubSpotTokens {
  access_token: string;
  refresh_token: string;
  expires_at: number;
  token_version: number;
}

export type HubSpotAutoSend = HubSpotAutoSendsTable;

/** What saving an install did; `taken`: another project holds the portal, nothing was written. */
export type InstallSaved = 'created' | 'reinstalled' | 'moved' | 'taken';

const toInstall = (r: HubSpotInstallsTable): HubSpotInstall => ({
  portal_id: r.portal_id,
  tenant_id: r.tenant_id,
  account_type: r.account_type,
  sandbox: Number(r.sandbox) === 1,
  status: r.status,
  expires_at: numOrNull(r.expires_at),
  token_version: Number(r.token_version),
  auto_send: { enabled: Number(r.auto_send_enabled) === 1, template: r.auto_send_template, line_id: r.auto_send_line_id },
  installed_at: Number(r.installed_at),
  ui_domain: r.ui_domain ?? null,
});

const toAutoSend = (r: HubSpotAutoSendsTable): HubSpotAutoSend => ({
  ...r,
  code: numOrNull(r.code),
  attempts: Number(r.attempts),
  next_attempt_at: Number(r.next_attempt_at),
  lease_until: numOrNull(r.lease_until),
  created_at: Number(r.created_at),
  updated_at: Number(r.updated_at),
});

export function hubspotRepo(db: Kysely<DB>, dialect: Dialect, box: SecretBox) {
  const installs = () => db.selectFrom('hubspot_installs');
  return {
    async getInstall(portalId: string): Promise<HubSpotInstall | undefined> {
      const r = await installs().selectAll().where('portal_id', '=', portalId).executeTakeFirst();
      return r && toInstall(r);
    },

    async listInstalls(tenantId: string): Promise<HubSpotInstall[]> {
      const rows = await installs().selectAll().where('tenant_id', '=', tenantId).orderBy('installed_at').orderBy('portal_id').execute();
      return rows.map(toInstall);
    },

    /** Active production installs of a tenant other than `exceptPortal` (the slots they take). */
    async productionInstalls(tenantId: string, exceptPortal: string): Promise<number> {
      const r = await installs()
        .select(sql<number>`count(*)`.as('n'))
        .where('tenant_id', '=', tenantId)
        .where('sandbox', '=', 0)
        .where('status', '!=', 'uninstalled')
        .where('portal_id', '!=', exceptPortal)
        .executeTakeFirst();
      return Number(r?.n ?? 0);
    },

    /**
     * Creates the install or replaces its tokens (a reinstall); auto-send settings survive a reinstall
     * by the same project. A portal another project uninstalled and this one installs starts afresh:
     * its auto-send settings (that project's template and line) are reset and its call counts (that
     * project's calls) deleted, in the same transaction. A portal another project holds (not
     * uninstalled) is not touched: `taken`. Decided on the row as it is when written (locked on
     * PostgreSQL, compared-and-set on both), so of two projects installing one portal at once
     * exactly one gets it and the other is answered `taken`.
     */
    async saveInstall(i: { portal_id: string; tenant_id: string; account_type: string; sandbox: boolean; ui_domain: string | null; tokens: { access_token: string; refresh_token: string; expires_at: number }; now: number }): Promise<InstallSaved> {
      const sealed = {
        access_token_enc: box.seal(i.tokens.access_token),
        refresh_token_enc: box.seal(i.tokens.refresh_token),
        expires_at: i.tokens.expires_at,
      };
      const common = { ...sealed, tenant_id: i.tenant_id, account_type: i.account_type, sandbox: i.sandbox ? 1 : 0, status: 'active' as const, ui_domain: i.ui_domain, refresh_lease_until: null, installed_at: i.now, updated_at: i.now };
      const fresh = { auto_send_enabled: 0, auto_send_template: null, auto_send_line_id: null };
      /** The row changed between our read and our write (another process's install): rolled back, decided again on the row as it now is. */
      class Overtaken extends Error {}
      for (let attempt = 0; ; attempt++) {
        try {
          return await db.transaction().execute(async (tx): Promise<InstallSaved> => {
            let read = tx.selectFrom('hubspot_installs').select(['tenant_id', 'status']).where('portal_id', '=', i.portal_id);
            if (dialect === 'postgres') read = read.forUpdate();
            const prev = await read.executeTakeFirst();
            if (!prev) {
              const r = await tx
                .insertInto('hubspot_installs')
                .values({ portal_id: i.portal_id, ...common, token_version: 1, ...fresh })
                .onConflict((oc) => oc.column('portal_id').doNothing())
                .executeTakeFirst();
              if (Number(r.numInsertedOrUpdatedRows ?? 0) !== 1) throw new Overtaken();
              return 'created';
            }
            const moving = prev.tenant_id !== i.tenant_id;
            if (moving && prev.status !== 'uninstalled') return 'taken';
            // Another project's calls are none of this one's: a portal moving to another project counts from its install.
            if (moving) await tx.deleteFrom('hubspot_call_counts').where('portal_id', '=', i.portal_id).execute();
            const r = await tx
              .updateTable('hubspot_installs')
              .set({ ...common, token_version: sql`token_version + 1`, ...(moving && fresh) })
              .where('portal_id', '=', i.portal_id)
              .where('tenant_id', '=', prev.tenant_id)
              .where('status', '=', prev.status)
              .executeTakeFirst();
            if (Number(r.numUpdatedRows) !== 1) throw new Overtaken();
            return moving ? 'moved' : 'reinstalled';
          });
        } catch (err) {
          // A concurrent insert of the same portal can also surface as a unique violation (SQLite across processes).
          if (!(err instanceof Overtaken || isUniqueViolation(err)) || attempt >= 4) throw err;
        }
      }
    },

    async tokens(portalId: string): Promise<HubSpotTokens | undefined> {
      const r = await installs().select(['access_token_enc', 'refresh_token_enc', 'expires_at', 'token_version', 'status']).where('portal_id', '=', portalId).executeTakeFirst();
      if (!r || r.status !== 'active' || !r.access_token_enc || !r.refresh_token_enc) return undefined;
      return { access_token: box.open(r.access_token_enc), refresh_token: box.open(r.refresh_token_enc), expires_at: Number(r.expires_at), token_version: Number(r.token_version) };
    },

    /** The right to refresh tokens at `version`, for `leaseMs` (real time); false when another process holds it or the tokens moved on. */
    async takeRefreshLease(portalId: string, version: number, nowMs: number, leaseMs: number): Promise<boolean> {
      const r = await db
        .updateTable('hubspot_installs')
        .set({ refresh_lease_until: nowMs + leaseMs })
        .where('portal_id', '=', portalId)
        .where('status', '=', 'active')
        .where('token_version', '=', version)
        .where((eb) => eb.or([eb('refresh_lease_until', 'is', null), eb('refresh_lease_until', '<', nowMs)]))
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    /** Stores refreshed tokens if they are still at `version`; ends the lease. */
    async saveRefreshed(portalId: string, version: number, t: { access_token: string; refresh_token: string; expires_at: number }, now: number): Promise<boolean> {
      const r = await db
        .updateTable('hubspot_installs')
        .set({ access_token_enc: box.seal(t.access_token), refresh_token_enc: box.seal(t.refresh_token), expires_at: t.expires_at, token_version: version + 1, refresh_lease_until: null, updated_at: now })
        .where('portal_id', '=', portalId)
        .where('token_version', '=', version)
        .where('status', '=', 'active')
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    async releaseRefreshLease(portalId: string): Promise<void> {
      await db.updateTable('hubspot_installs').set({ refresh_lease_until: null }).where('portal_id', '=', portalId).execute();
    },

    /** HubSpot refused the refresh token: the install needs reinstalling (its tokens are useless, so they go). */
    async markTokenInvalid(portalId: string, version: number, now: number): Promise<void> {
      await db
        .updateTable('hubspot_installs')
        .set({ status: 'token_invalid', access_token_enc: null, refresh_token_enc: null, refresh_lease_until: null, updated_at: now })
        .where('portal_id', '=', portalId)
        .where('token_version', '=', version)
        .execute();
    },

    /** Uninstall: the tokens are deleted, not flagged. */
    async uninstall(portalId: string, now: number): Promise<void> {
      await db
        .updateTable('hubspot_installs')
        .set({ status: 'uninstalled', access_token_enc: null, refresh_token_enc: null, expires_at: null, refresh_lease_until: null, auto_send_enabled: 0, updated_at: now })
        .where('portal_id', '=', portalId)
        .execute();
    },

    /** The portal's UI domain, learned after its install (installs made before 022). */
    async setUiDomain(portalId: string, uiDomain: string): Promise<void> {
      await db.updateTable('hubspot_installs').set({ ui_domain: uiDomain }).where('portal_id', '=', portalId).execute();
    },

    async setAutoSend(portalId: string, a: { enabled: boolean; template: string | null; line_id: string | null }, now: number): Promise<void> {
      await db
        .updateTable('hubspot_installs')
        .set({ auto_send_enabled: a.enabled ? 1 : 0, auto_send_template: a.template, auto_send_line_id: a.line_id, updated_at: now })
        .where('portal_id', '=', portalId)
        .execute();
    },

    async insertState(s: { state_hash: string; tenant_id: string; created_at: number; expires_at: number }): Promise<void> {
      await db.insertInto('hubspot_oauth_states').values({ ...s, used_at: null }).execute();
    },

    /** Uses a state once: the tenant it was issued to, or undefined when unknown, expired or used. */
    async consumeState(stateHash: string, now: number): Promise<string | undefined> {
      const r = await db
        .updateTable('hubspot_oauth_states')
        .set({ used_at: now })
        .where('state_hash', '=', stateHash)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return undefined;
      const row = await db.selectFrom('hubspot_oauth_states').select('tenant_id').where('state_hash', '=', stateHash).executeTakeFirst();
      return row?.tenant_id;
    },

    async countCall(portalId: string, day: string, kind: string): Promise<void> {
      await db
        .insertInto('hubspot_call_counts')
        .values({ portal_id: portalId, day, kind, count: 1 })
        .onConflict((oc) => oc.columns(['portal_id', 'day', 'kind']).doUpdateSet({ count: sql`hubspot_call_counts.count + 1` }))
        .execute();
    },

    async callCounts(portalId: string, day: string): Promise<Record<string, number>> {
      const rows = await db.selectFrom('hubspot_call_counts').select(['kind', 'count']).where('portal_id', '=', portalId).where('day', '=', day).execute();
      return Object.fromEntries(rows.map((r) => [r.kind, Number(r.count)]));
    },

    /** Records an auto-send once per portal and contact; false when it was recorded already. */
    async recordAutoSend(a: HubSpotAutoSend): Promise<boolean> {
      try {
        const r = await db.insertInto('hubspot_auto_sends').values(a).onConflict((oc) => oc.columns(['portal_id', 'object_id']).doNothing()).executeTakeFirst();
        return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
      } catch (err) {
        if (isUniqueViolation(err)) return false;
        throw err;
      }
    },

    /**
     * Claims pending auto-sends due by `dueBy` (business clock: a wait for the sending window ends by
     * it) for `leaseMs` from `nowMs` (real time); on PostgreSQL rows another process holds are skipped.
     */
    async claimAutoSends(dueBy: number, nowMs: number, leaseMs: number, limit: number): Promise<HubSpotAutoSend[]> {
      const lock = dialect === 'postgres' ? sql.raw('for update skip locked') : sql.raw('');
      const r = await sql<HubSpotAutoSendsTable>`
        update hubspot_auto_sends set lease_until = ${nowMs + leaseMs}, attempts = attempts + 1
        where id in (
          select id from hubspot_auto_sends
          where status = 'pending' and next_attempt_at <= ${dueBy} and (lease_until is null or lease_until < ${nowMs})
          order by next_attempt_at limit ${limit} ${lock})
        returning *`.execute(db);
      return r.rows.map(toAutoSend);
    },

    /** Ends a claimed auto-send (or puts it back for later with `next_attempt_at`). */
    async settleAutoSend(id: string, patch: Partial<Pick<HubSpotAutoSend, 'status' | 'reason' | 'code' | 'message_id' | 'next_attempt_at' | 'phone' | 'text' | 'attempts'>>, now: number): Promise<void> {
      await db.updateTable('hubspot_auto_sends').set({ ...patch, lease_until: null, updated_at: now }).where('id', '=', id).where('status', '=', 'pending').execute();
    },

    async nextAutoSendDue(): Promise<number | null> {
      const r = await db.selectFrom('hubspot_auto_sends').select(sql<number | null>`min(next_attempt_at)`.as('at')).where('status', '=', 'pending').executeTakeFirst();
      return r?.at == null ? null : Number(r.at);
    },

    /** Newest first; the cursor is the last row's id. */
    async listAutoSends(tenantId: string, portalId: string, opts: { status?: string; before?: string; limit: number }): Promise<HubSpotAutoSend[]> {
      // The project's own: a portal another project had before keeps that project's records.
      let q = db.selectFrom('hubspot_auto_sends').selectAll().where('tenant_id', '=', tenantId).where('portal_id', '=', portalId);
      if (opts.status) q = q.where('status', '=', opts.status as HubSpotAutoSend['status']);
      if (opts.before) q = q.where('id', '<', opts.before);
      const rows = await q.orderBy('id', 'desc').limit(opts.limit).execute();
      return rows.map(toAutoSend);
    },

    async getAutoSend(portalId: string, objectId: string): Promise<HubSpotAutoSend | undefined> {
      const r = await db.selectFrom('hubspot_auto_sends').selectAll().where('portal_id', '=', portalId).where('object_id', '=', objectId).executeTakeFirst();
      return r && toAutoSend(r);
    },

    /** The handle now belongs to this HubSpot contact (reply push looks here). */
    async linkContact(l: { tenant_id: string; handle: string; portal_id: string; contact_id: string; linked_at: number }): Promise<void> {
      await db
        .insertInto('hubspot_contact_links')
        // Unsettled: the reply push sweeps it for replies recorded before it was visible (hubspot-push.ts).
        .values({ ...l, settled: 0 })
        .onConflict((oc) => oc.columns(['tenant_id', 'handle', 'portal_id']).doUpdateSet({ contact_id: l.contact_id }))
        .execute();
    },

    async linkedContacts(tenantId: string, handle: string): Promise<{ portal_id: string; contact_id: string; linked_at: number }[]> {
      const rows = await db.selectFrom('hubspot_contact_links').select(['portal_id', 'contact_id', 'linked_at']).where('tenant_id', '=', tenantId).where('handle', '=', handle).execute();
      return rows.map((r) => ({ ...r, linked_at: Number(r.linked_at) }));
    },
  };
}

export type HubSpotRepo = ReturnType<typeof hubspotRepo>;
