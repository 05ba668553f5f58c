/**
 * The HubSpot app project (integrations/hubspot): the card's code type-checks
 * against HubSpot's published UI-extension types, and the definitions point at
 * the routes this service serves, with the scopes it asks for.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { OAUTH_CALLBACK_PATH } from '../../../src/crm/hubspot/index.js';
import { operations } from '../../../src/contract/index.js';
import { hubspotWorkflowSend } from '../../../src/contract/hubspot-workflow-send.js';

/** The paths HubSpot calls with its signature (the contract's auth 'hubspot'). */
const SIGNED = operations.filter((o) => o.auth === 'hubspot').map((o) => o.path);

const root = path.resolve(import.meta.dirname, '../../../integrations/hubspot');
const read = (p: string) => JSON.parse(fs.readFileSync(path.join(root, p), 'utf8'));

it('the contact card type-checks against @hubspot/ui-extensions', async () => {
  const tsc = path.resolve(import.meta.dirname, '../../../node_modules/typescript/bin/tsc');
  const run = await promisify(execFile)(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.json')]).then(
    () => ({ code: 0, out: '' }),
    (err: { code: number; stdout: string }) => ({ code: err.code, out: err.stdout }),
  );
  expect(run.out).toBe('');
  expect(run.code).toBe(0);
}, 60_000);

it('the app, card, workflow action and webhook definitions name our routes, scopes and the parameterized service URL', () => {
  const profile = read('hsprofile.production.json');
  expect(Object.keys(profile.variables)).toEqual(['BLUELINE_URL']);
  const files = ['src/app/app-hsmeta.json', 'src/app/cards/contact-card-hsmeta.json', 'src/app/workflow-actions/send-imessage-hsmeta.json', 'src/app/webhooks/webhooks-hsmeta.json'];
  for (const f of files) {
    const text = fs.readFileSync(path.join(root, f), 'utf8');
    // No service URL written in: every one comes from the profile.
    expect(text).not.toMatch(/https?:\/\//);
    for (const [, v] of text.matchAll(/\$\{(\w+)\}/g)) expect(profile.variables).toHaveProperty(v!);
  }
  const app = read(files[0]!);
  expect(app.config.auth.redirectUrls).toEqual([`\${BLUELINE_URL}${OAUTH_CALLBACK_PATH}`]);
  const scopes = loadConfig({ HUBSPOT_CLIENT_ID: 'x', HUBSPOT_CLIENT_SECRET: 'y' }).hubspot!.scopes.split(' ');
  expect(app.config.auth.requiredScopes).toEqual(scopes);
  expect(app.config.permittedUrls.fetch).toEqual(['${BLUELINE_URL}']);

  const card = read(files[1]!);
  expect(card.config).toMatchObject({ location: 'crm.record.tab', objectTypes: ['contacts'] });
  expect(fs.existsSync(path.join(root, 'src', card.config.entrypoint))).toBe(true);
  const code = fs.readFileSync(path.join(root, 'src', card.config.entrypoint), 'utf8');
  for (const route of ['/crm/hubspot/card?', '/crm/hubspot/card/send']) expect(code).toContain(route);
  expect(SIGNED).toEqual(expect.arrayContaining(['/crm/hubspot/card', '/crm/hubspot/card/send']));

  const action = read(files[2]!);
  expect(action.config.actionUrl).toBe(`\${BLUELINE_URL}${hubspotWorkflowSend.path}`);
  expect(SIGNED).toContain(hubspotWorkflowSend.path);
  expect(action.config.inputFields.map((f: any) => f.typeDefinition.name)).toEqual(['message', 'phone']);

  const hooks = read(files[3]!);
  expect(hooks.config.settings.targetUrl).toBe('${BLUELINE_URL}/crm/hubspot/webhook');
  expect(SIGNED).toContain('/crm/hubspot/webhook');
  expect(hooks.config.subscriptions.legacyCrmObjects).toEqual([{ subscriptionType: 'contact.creation', active: true }]);
});
