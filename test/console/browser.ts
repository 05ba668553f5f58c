/** Debian's Chromium driven by playwright-core (never a downloaded browser), and axe-core. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { projectRoot } from '../support/server-process.js';

// Evaluated in the page, not in Node: its globals, loosely typed (the test project has no DOM lib).
declare const window: any; // eslint-disable-line @typescript-eslint/no-explicit-any

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** The system Chromium: CHROMIUM_PATH, else the Debian package's binary. */
export function chromiumPath(): string | undefined {
  for (const p of [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/lib/chromium/chromium']) {
    if (p && fs.existsSync(p)) return p;
  }
  return undefined;
}

/** A fresh profile (its own --user-data-dir) each time. */
export async function launch(): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error('Chromium not found: install the chromium package (apt-get install chromium)');
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, { executablePath, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1360, height: 860 } });
  return {
    context,
    close: async () => {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** console/dist, built when missing (npm test builds it first). */
export function ensureConsoleBuilt(): void {
  if (fs.existsSync(path.join(projectRoot, 'console/dist/index.html'))) return;
  execFileSync('npm', ['run', 'build', '--workspace', '@blueline/console'], { cwd: projectRoot, stdio: 'ignore' });
}

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Serious and critical accessibility violations on the page as it is now. */
export async function axeViolations(page: Page): Promise<{ id: string; impact: string; nodes: string[] }[]> {
  // Injected through the DevTools protocol, so the page's CSP (no inline script) does not block it.
  await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const r = await (window as unknown as { axe: { run: (o: object) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe.run({ resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

export interface Demo {
  tenant: string;
  signing_secret: string;
  phone_line_ids: string[];
}

/** The demo sandbox a service process wrote into its data directory. */
export const demoOf = (dataDir: string): Demo => JSON.parse(fs.readFileSync(path.join(dataDir, 'demo.json'), 'utf8'));

/** The service's API as the tests call it beside the browser: a bearer token and the demo's tenant header. */
export const apiCaller = (baseUrl: string, tenant: () => string) => (method: string, p: string, body: unknown, token: string) =>
  fetch(`${baseUrl}${p}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'x-service-tenant': tenant(), ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** Signs in on the project sign-in form as the demo project. */
export async function signInAsProject(page: Page, demo: Demo): Promise<void> {
  await page.getByLabel('Tenant slug').fill(demo.tenant);
  await page.getByLabel('Signing secret').fill(demo.signing_secret);
  await page.getByRole('button', { name: 'Sign in' }).click();
}
