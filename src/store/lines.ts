import type { Kysely } from 'kysely';
import type { DB } from './schema.js';
import type { SecretBox } from './secret-box.js';
import { columnsOf, first, prepared } from './prepared.js';
import { toTenant, type Tenant } from './tenants.js';

const lineByIdQ = prepared<{ id: string }, DB['phone_lines']>(['id'], (db, p) => db.selectFrom('phone_lines').selectAll().where('id', '=', p.id));

const TENANT_COLUMNS = columnsOf<DB['tenants']>({
  id: true, account_id: true, slug: true, name: true, timezone: true, sending_window_start: true, sending_window_end: true,
  daily_first_touch_cap: true, rate_per_second: true, rate_burst: true, status: true, created_at: true, crm_install_slots: true,
});
/** A line and its tenant in one read (the tenant's columns prefixed `t_`), for the inbound path. */
const lineWithTenantQ = prepared<{ id: string }, DB['phone_lines'] & Record<string, unknown>>(['id'], (db, p) =>
  db
    .selectFrom('phone_lines as l')
    .innerJoin('tenants as t', 't.id', 'l.tenant_id')
    .selectAll('l')
    .select(TENANT_COLUMNS.map((c) => `t.${c} as t_${c}` as const) as never)
    .where('l.id', '=', p.id),
);

/** The columns of a line, for a query that reads one with something else. */
export const LINE_COLUMNS = columnsOf<DB['phone_lines']>({
  id: true, tenant_id: true, phone_number: true, service: true, driver: true, driver_config_enc: true, capabilities: true, is_active: true, created_at: true,
});

export interface PhoneLine {
  id: string;
  tenant_id: string;
  phone_number: string;
  service: 'imessage';
  driver: string;
  /** decrypted; only the domain and drivers see it, never the API */
  driver_config: Record<string, unknown>;
  capabilities: string[];
  is_active: boolean;
  created_at: number;
}

export function linesRepo(db: Kysely<DB>, box: SecretBox) {
  const toLine = (r: DB['phone_lines']): PhoneLine => {
    const line = {
      id: r.id,
      tenant_id: r.tenant_id,
      phone_number: r.phone_number,
      service: 'imessage',
      driver: r.driver,
      capabilities: JSON.parse(r.capabilities) as string[],
      is_active: r.is_active === 1,
      created_at: Number(r.created_at),
    } as PhoneLine;
    // Decrypted on first read only: listings never need the driver's secrets.
    let config: Record<string, unknown> | undefined;
    // The sealed text identifies this configuration without decrypting it (a new seal on every change).
    Object.defineProperty(line, 'config_key', { enumerable: false, value: r.driver_config_enc });
    Object.defineProperty(line, 'driver_config', {
      enumerable: true,
      get: () => (config ??= JSON.parse(box.open(r.driver_config_enc)) as Record<string, unknown>),
      set: (v: Record<string, unknown>) => (config = v),
    });
    return line;
  };
  const toRow = (l: PhoneLine): DB['phone_lines'] => ({
    id: l.id,
    tenant_id: l.tenant_id,
    phone_number: l.phone_number,
    service: l.service,
    driver: l.driver,
    driver_config_enc: box.seal(JSON.stringify(l.driver_config)),
    capabilities: JSON.stringify(l.capabilities),
    is_active: l.is_active ? 1 : 0,
    created_at: l.created_at,
  });

  return {
    /** A line from its row, read elsewhere (in a join). */
    fromRow: toLine,
    async insert(l: PhoneLine): Promise<void> {
      await db.insertInto('phone_lines').values(toRow(l)).execute();
    },
    async get(id: string): Promise<PhoneLine | undefined> {
      const r = await first(lineByIdQ, db, { id });
      return r && toLine(r);
    },
    async getWithTenant(id: string): Promise<{ line: PhoneLine; tenant: Tenant } | undefined> {
      const r = await first(lineWithTenantQ, db, { id });
      if (!r) return undefined;
      const tenant = toTenant(Object.fromEntries(TENANT_COLUMNS.map((c) => [c, r[`t_${c}`]])) as unknown as DB['tenants']);
      return { line: toLine(r), tenant };
    },
    async getByNumber(phoneNumber: string): Promise<PhoneLine | undefined> {
      const r = await db.selectFrom('phone_lines').selectAll().where('phone_number', '=', phoneNumber).executeTakeFirst();
      return r && toLine(r);
    },
    async listByTenant(tenantId: string): Promise<PhoneLine[]> {
      const rows = await db
        .selectFrom('phone_lines')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toLine);
    },
    async list(): Promise<PhoneLine[]> {
      const rows = await db.selectFrom('phone_lines').selectAll().orderBy('created_at').orderBy('id').execute();
      return rows.map(toLine);
    },
    async replace(l: PhoneLine): Promise<void> {
      const { id, ...rest } = toRow(l);
      await db.updateTable('phone_lines').set(rest).where('id', '=', id).execute();
    },
  };
}

export type LinesRepo = ReturnType<typeof linesRepo>;
