/**
 * The demo sandbox created on the first start with an empty store: one
 * single-tenant account, its tenant (sending window all day) and two
 * simulator lines, so a newcomer can call the API at once.
 */
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

export async function createDemoSandbox(
  services: { accounts: AccountsService; lines: LinesService },
  opts: { baseUrl: string; adminToken: string },
): Promise<DemoSandbox> {
  const { account, signingSecret } = await services.accounts.createAccount({ name: 'Demo account' });
  const tenant = await services.accounts.createTenant({
    account_id: account.id,
    slug: 'demo',
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
