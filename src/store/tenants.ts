import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

export interface Tenant {
  id: string;
  account_id: string;
  slug: string;
  name: string;
  timezone: string;
  sending_window: { start: string; end: string };
  daily_first_touch_cap: number;
  rate_limit: { per_second: number; burst: number };
  status: 'active' | 'suspended';
  created_at: number;
  /** production HubSpot portals the tenant may connect (sandbox portals take none) */
  crm_install_slots?: number;
}

type Row = DB['tenants'];
export const toTenant = (r: Row): Tenant => ({
  id: r.id,
  account_id: r.account_id,
  slug: r.slug,
  name: r.name,
  timezone: r.timezone,
  sending_window: { start: r.sending_window_start, end: r.sending_window_end },
  daily_first_touch_cap: Number(r.daily_first_touch_cap),
  rate_limit: { per_second: Number(r.rate_per_second), burst: Number(r.rate_burst) },
  status: r.status,
  created_at: Number(r.created_at),
  crm_install_slots: Number(r.crm_install_slots ?? 1),
});

const toRow = (t: Tenant): Row => ({
  id: t.id,
  account_id: t.account_id,
  slug: t.slug,
  name: t.name,
  timezone: t.timezone,
  sending_window_start: t.sending_window.start,
  sending_window_end: t.sending_window.end,
  daily_first_touch_cap: t.daily_first_touch_cap,
  rate_per_second: t.rate_limit.per_second,
  rate_burst: t.rate_limit.burst,
  status: t.status,
  created_at: t.created_at,
  crm_install_slots: t.crm_install_slots ?? 1,
});

export function tenantsRepo(db: Kysely<DB>) {
  return {
    async insert(t: Tenant): Promise<void> {
      await db.insertInto('tenants').values(toRow(t)).execute();
    },
    async getBySlug(slug: string): Promise<Tenant | undefined> {
      const r = await db.selectFrom('tenants').selectAll().where('slug', '=', slug).executeTakeFirst();
      return r && toTenant(r);
    },
    async getById(id: string): Promise<Tenant | undefined> {
      const r = await db.selectFrom('tenants').selectAll().where('id', '=', id).executeTakeFirst();
      return r && toTenant(r);
    },
    async listByAccount(accountId: string): Promise<Tenant[]> {
      const rows = await db
        .selectFrom('tenants')
        .selectAll()
        .where('account_id', '=', accountId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toTenant);
    },
    async list(): Promise<Tenant[]> {
      const rows = await db.selectFrom('tenants').selectAll().orderBy('created_at').orderBy('id').execute();
      return rows.map(toTenant);
    },
    async replace(t: Tenant): Promise<void> {
      const { id, ...rest } = toRow(t);
      await db.updateTable('tenants').set(rest).where('id', '=', id).execute();
    },
  };
}

export type TenantsRepo = ReturnType<typeof tenantsRepo>;
