/** Phone lines: assignment to tenants, driver choice and what each driver needs to run. */
import { DomainError } from '../../errors/registry.js';
import type { Clock } from '../../clock.js';
import type { Store, PhoneLine } from '../../store/index.js';
import { newUuid } from '../ids.js';
import { normalizeE164 } from '../handles.js';
import { ttlCache } from '../ttl-cache.js';
import { quotedSlug } from '../accounts-tenants/settings.js';
import { configProblems as blueBubblesConfigProblems } from '../../drivers/bluebubbles/config.js';
import { LINE_CAPABILITIES, LINE_DRIVERS, type LineDriverName } from './vocabulary.js';

/** How long another process may serve a tenant's line list after a change. */
export const LINES_CACHE_MS = 2_000;

/** A new line may do everything unless it says otherwise. */
export const DEFAULT_CAPABILITIES: string[] = [...LINE_CAPABILITIES];

/**
 * Whether messages may go out from this line: active, and declared to send. A line without
 * `send` still records what arrives on it (an inbound message is never dropped).
 */
export const sendsFrom = (l: PhoneLine): boolean => l.is_active && l.capabilities.includes('send');

/** What each driver needs in driver_config, so a line that could never send is refused when it is saved. */
const CONFIG_PROBLEMS: Record<LineDriverName, (config: Record<string, unknown>) => string[]> = {
  simulator: () => [],
  bluebubbles: blueBubblesConfigProblems,
};

function assertConfig(driver: LineDriverName, config: Record<string, unknown>): void {
  const problems = CONFIG_PROBLEMS[driver](config);
  if (problems.length > 0) throw new DomainError(1002, `a ${driver} line's ${problems.join('; ')}`);
}

export interface LineInput {
  tenant: string;
  phone_number: string;
  driver: string;
  driver_config?: Record<string, unknown>;
  capabilities?: readonly string[];
  is_active?: boolean;
}

export function linesService(deps: { store: Store; clock: Clock; /** told after a line is created or changed */ onLineSaved?: (line: PhoneLine) => void }) {
  const { store, clock } = deps;
  const byTenant = ttlCache<PhoneLine[]>(LINES_CACHE_MS);

  async function tenantBySlug(slug: string) {
    const t = await store.tenants.getBySlug(slug);
    if (!t) throw new DomainError(2001, `tenant ${quotedSlug(slug)} not found`);
    return t;
  }

  function assertDriver(driver: string): asserts driver is LineDriverName {
    if (!(LINE_DRIVERS as readonly string[]).includes(driver)) {
      throw new DomainError(1002, `driver must be one of ${LINE_DRIVERS.join(', ')}`);
    }
  }

  return {
    async create(input: LineInput) {
      const tenant = await tenantBySlug(input.tenant);
      const phone = normalizeE164(input.phone_number);
      if (!phone) throw new DomainError(1003, `phone_number "${input.phone_number}" is not E.164 (e.g. +14155550100)`);
      assertDriver(input.driver);
      assertConfig(input.driver, input.driver_config ?? {});
      if (await store.lines.getByNumber(phone)) throw new DomainError(1012, `line ${phone} already exists`);
      const line: PhoneLine = {
        id: newUuid(),
        tenant_id: tenant.id,
        phone_number: phone,
        service: 'imessage',
        driver: input.driver,
        driver_config: input.driver_config ?? {},
        capabilities: input.capabilities ? [...new Set(input.capabilities)] : DEFAULT_CAPABILITIES,
        is_active: input.is_active ?? true,
        created_at: clock.now(),
      };
      await store.lines.insert(line);
      byTenant.delete(tenant.id);
      deps.onLineSaved?.(line);
      return { line, tenant };
    },

    async update(id: string, patch: Partial<Omit<LineInput, 'phone_number'>>) {
      const line = await store.lines.get(id);
      if (!line) throw new DomainError(2011, `phone line ${id} not found`);
      const next: PhoneLine = { ...line };
      if (patch.tenant !== undefined) next.tenant_id = (await tenantBySlug(patch.tenant)).id;
      if (patch.driver !== undefined) {
        assertDriver(patch.driver);
        next.driver = patch.driver;
      }
      if (patch.driver_config !== undefined) next.driver_config = patch.driver_config;
      if (patch.capabilities !== undefined) next.capabilities = [...new Set(patch.capabilities)];
      if (patch.is_active !== undefined) next.is_active = patch.is_active;
      if (patch.driver !== undefined || patch.driver_config !== undefined) assertConfig(next.driver as LineDriverName, next.driver_config);
      await store.lines.replace(next);
      byTenant.delete(line.tenant_id);
      byTenant.delete(next.tenant_id);
      deps.onLineSaved?.(next);
      const tenant = (await store.tenants.getById(next.tenant_id))!;
      return { line: next, tenant };
    },

    async listWithTenants() {
      const [lines, tenants] = await Promise.all([store.lines.list(), store.tenants.list()]);
      const slugOf = new Map(tenants.map((t) => [t.id, t.slug]));
      return lines.map((l) => ({ line: l, tenantSlug: slugOf.get(l.tenant_id) ?? '' }));
    },

    /** The tenant's lines for listing (cached briefly); sending reads the store directly. */
    listForTenant: (tenantId: string) => byTenant.get(tenantId, () => store.lines.listByTenant(tenantId)),
  };
}

export type LinesService = ReturnType<typeof linesService>;
