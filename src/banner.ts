/**
 * The first-start banner. The demo sandbox's signing secret and admin token are shown only to a
 * person at a terminal: when stdout is a pipe or file it ends up in journald or container logs,
 * so then the banner says where demo.json (mode 0600) is instead.
 */
import type { DemoSandbox } from './domain/accounts-tenants/demo.js';

/** Without `admin_token` when the operator gave ADMIN_TOKEN (main.ts does not copy it to disk). */
export function firstStartBanner(demo: Omit<DemoSandbox, 'admin_token'> & { admin_token?: string }, demoFile: string, toTerminal: boolean): string {
  const admin = demo.admin_token === undefined ? ['  admin_token     (ADMIN_TOKEN, as set in the environment)'] : toTerminal ? [`  admin_token     ${demo.admin_token}`] : ['  admin_token     (not printed; in the same file)'];
  const secrets = [toTerminal ? `  signing_secret  ${demo.signing_secret}` : `  signing_secret  (not printed: stdout is not a terminal; it is in ${demoFile})`, ...admin];
  return [
    '',
    'Blueline demo sandbox created (first start, empty store):',
    `  base_url        ${demo.base_url}`,
    `  tenant          ${demo.tenant}`,
    ...secrets,
    `  phone_line_ids  ${demo.phone_line_ids.join(', ')}`,
    `  saved to        ${demoFile}`,
    '',
    `Try: curl -s ${demo.base_url}/api/v1/phone-numbers -H "Authorization: Bearer $(node -p "require('${demoFile}').signing_secret")"`,
    '',
  ].join('\n');
}
