/**
 * The demo sandbox created on the first start with an empty store: one
 * single-tenant account, its tenant (sending window all day) and two
 * simulator lines, so a newcomer can call the API at once.
 */
import { DomainError } from '../../errors/registry.js';
import type { AccountsService } from './service.js';
import type { LinesService } from '../lines/service.js';

export interface DemoSandbox {
  base_url: string;
  tenant: string;
  signing_secret: string;
  admin_token: string;
  phone_line_ids: string[];
}

export const DEMO_LINE_NUMBERS = ['+15550100001', '+15550100002'];
const DEMO_SLUG = 'demo';

/**
 * The demo sandbox, made once: processes starting together on an empty database (several behind a
 * load balancer) take turns (`firstStart`), and those after the first get the sandbox it made
 * (the same tenant, secret and lines), instead of a second account and a refusal of its slug.
 */
export async function createDemoSandbox(
  services: { accounts: AccountsService; lines: LinesService },
  opts: { baseUrl: string; adminToken: string },
): Promise<DemoSandbox> {
  return services.accounts.firstStart(async () => (await existingDemoSandbox(services, opts)) ?? (await makeDemoSandbox(services, opts)));
}

async function existingDemoSandbox(
  services: { accounts: AccountsService; lines: LinesService },
  opts: { baseUrl: string; adminToken: string },
): Promise<DemoSandbox | undefined> {
  const tenant = await services.accounts.getTenant(DEMO_SLUG).catch((err: unknown) => {
    if (err instanceof DomainError && err.code === 2001) return undefined;
    throw err;
  });
  if (!tenant) return undefined;
  const signing_secret = await services.accounts.liveSigningSecret(tenant.account_id);
  if (!signing_secret) return undefined;
  const lines = await services.lines.listForTenant(tenant.id);
  const phone_line_ids = DEMO_LINE_NUMBERS.map((n) => lines.find((l) => l.phone_number === n)?.id).filter((id): id is string => id !== undefined);
  return { base_url: opts.baseUrl, tenant: tenant.slug, signing_secret, admin_token: opts.adminToken, phone_line_ids };
}

async function makeDemoSandbox(
  services: { accounts: AccountsService; lines: LinesService },
  opts: { baseUrl: string; adminToken: string },
): Promise<DemoSandbox> {
  const { account, signingSecret } = await services.accounts.createAccount({ name: 'Demo account' });
  const tenant = await services.accounts.createTenant({
    account_id: account.id,
    slug: DEMO_SLUG,
    name: 'Demo project',
    timezone: 'UTC',
    sending_window: { start: '00:00', end: '24:00' },
  });
  const phone_line_ids: string[] = [];
  for (const phone_number of DEMO_LINE_NUMBERS) {
    const { line } = await services.lines.create({ tenant: tenant.slug, phone_number, driver: 'simulator' });
    phone_line_ids.push(line.id);
  }
  return { base_url: opts.baseUrl, tenant: tenant.slug, signing_secret: signingSecret, admin_token: opts.adminToken, phone_line_ids };
}
