#!/usr/bin/env node
/**
 * `blueline` — the operator CLI over the admin API.
 *   BLUELINE_URL (default http://127.0.0.1:8787) and ADMIN_TOKEN (default:
 *   DATA_DIR/admin-token) say where and as whom.
 */
import fs from 'node:fs';
import path from 'node:path';
import { backupNote, backupSqlite } from './backup.js';

const USAGE = `usage: blueline <command> [options]

  accounts list
  accounts get ID
  accounts create --name NAME [--multi-tenant] [--unverified]
  accounts update ID [--name NAME] [--multi-tenant | --single-tenant]
                     [--verified | --unverified]
  accounts rotate-secret ID [--overlap-hours H]
  tenants list
  tenants get SLUG
  tenants create --account ID --slug SLUG [--name N] [--timezone TZ]
                 [--window HH:MM-HH:MM] [--daily-cap N] [--rate PER_SECOND/BURST]
  tenants update SLUG [same options as create] [--suspend | --activate]
  lines list
  lines create --tenant SLUG --number E164 [--driver simulator|bluebubbles]
               [--config JSON]
  lines update ID [--active | --inactive] [--config JSON] [--tenant SLUG]
  clock advance MS            (server started with BLUELINE_TEST_CLOCK=1)
  backup FILE                 copy of the SQLite store in DATA_DIR, taken while the
                              service runs (on its machine; PostgreSQL: pg_dump)

environment: BLUELINE_URL (http://127.0.0.1:8787), ADMIN_TOKEN (or DATA_DIR/admin-token),
             DATA_DIR (./data)`;

type Flags = Record<string, string | boolean>;

export function parseArgs(argv: string[]): { positional: string[]; flags: Flags } {
  const positional: string[] = [];
  const flags: Flags = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith('--')) {
      const key = a.slice(2);
      const next = argv[i + 1];
      if (next !== undefined && !next.startsWith('--')) {
        flags[key] = next;
        i++;
      } else flags[key] = true;
    } else positional.push(a);
  }
  return { positional, flags };
}

function str(flags: Flags, key: string): string | undefined {
  const v = flags[key];
  if (typeof v === 'boolean') throw new Error(`--${key} needs a value`);
  return v;
}

function tenantSettings(flags: Flags): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const name = str(flags, 'name');
  if (name) body.name = name;
  const tz = str(flags, 'timezone');
  if (tz) body.timezone = tz;
  const window = str(flags, 'window');
  if (window) {
    const [start, end] = window.split('-');
    body.sending_window = { start, end };
  }
  const cap = str(flags, 'daily-cap');
  if (cap !== undefined) body.daily_first_touch_cap = Number(cap);
  const rate = str(flags, 'rate');
  if (rate) {
    const [perSecond, burst] = rate.split('/');
    body.rate_limit = { per_second: Number(perSecond), burst: Number(burst ?? perSecond) };
  }
  const status = either(flags, 'suspend', 'activate');
  if (status !== undefined) body.status = status ? 'suspended' : 'active';
  return body;
}

/** Two flags that say opposite things: true for the first, false for the second, undefined for neither. */
function either(flags: Flags, yes: string, no: string): boolean | undefined {
  if (flags[yes] && flags[no]) throw new Error(`--${yes} and --${no} contradict each other; give one`);
  return flags[yes] ? true : flags[no] ? false : undefined;
}

function adminToken(): string {
  // Trimmed as the service trims it (a secret file's newline).
  const fromEnv = process.env.ADMIN_TOKEN?.trim();
  if (fromEnv) return fromEnv;
  const file = path.join(path.resolve(process.env.DATA_DIR || './data'), 'admin-token');
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    throw new Error(`set ADMIN_TOKEN (no ${file} to read it from)`);
  }
}

/** Maps argv to one admin API call: [method, path, body]. */
export function route(positional: string[], flags: Flags): [string, string, unknown?] {
  const [group, action, arg] = positional;
  const need = (v: string | undefined, what: string) => {
    if (!v) throw new Error(`missing ${what}`);
    return v;
  };
  switch (`${group} ${action}`) {
    case 'accounts list': return ['GET', '/admin/v1/accounts'];
    case 'accounts get': return ['GET', `/admin/v1/accounts/${encodeURIComponent(need(arg, 'account id'))}`];
    case 'accounts update': {
      const body: Record<string, unknown> = {};
      const name = str(flags, 'name');
      if (name) body.name = name;
      const multi = either(flags, 'multi-tenant', 'single-tenant');
      if (multi !== undefined) body.multi_tenant = multi;
      const verified = either(flags, 'verified', 'unverified');
      if (verified !== undefined) body.email_verified = verified;
      return ['PATCH', `/admin/v1/accounts/${encodeURIComponent(need(arg, 'account id'))}`, body];
    }
    case 'accounts create':
      return ['POST', '/admin/v1/accounts', { name: need(str(flags, 'name'), '--name'), multi_tenant: !!flags['multi-tenant'], email_verified: !flags.unverified }];
    case 'accounts rotate-secret': {
      const hours = str(flags, 'overlap-hours');
      return ['POST', `/admin/v1/accounts/${encodeURIComponent(need(arg, 'account id'))}/rotate-secret`, hours === undefined ? {} : { overlap_hours: Number(hours) }];
    }
    case 'tenants list': return ['GET', '/admin/v1/tenants'];
    case 'tenants get': return ['GET', `/admin/v1/tenants/${encodeURIComponent(need(arg, 'slug'))}`];
    case 'tenants create':
      return ['POST', '/admin/v1/tenants', { account_id: need(str(flags, 'account'), '--account'), slug: need(str(flags, 'slug'), '--slug'), ...tenantSettings(flags) }];
    case 'tenants update': return ['PATCH', `/admin/v1/tenants/${encodeURIComponent(need(arg, 'slug'))}`, tenantSettings(flags)];
    case 'lines list': return ['GET', '/admin/v1/lines'];
    case 'lines create': {
      const config = str(flags, 'config');
      return ['POST', '/admin/v1/lines', {
        tenant: need(str(flags, 'tenant'), '--tenant'),
        phone_number: need(str(flags, 'number'), '--number'),
        driver: str(flags, 'driver') ?? 'simulator',
        ...(config && { driver_config: JSON.parse(config) }),
      }];
    }
    case 'lines update': {
      const body: Record<string, unknown> = {};
      const active = either(flags, 'active', 'inactive');
      if (active !== undefined) body.is_active = active;
      const config = str(flags, 'config');
      if (config) body.driver_config = JSON.parse(config);
      const tenant = str(flags, 'tenant');
      if (tenant) body.tenant = tenant;
      return ['PATCH', `/admin/v1/lines/${encodeURIComponent(need(arg, 'line id'))}`, body];
    }
    case 'clock advance': return ['POST', '/admin/v1/clock/advance', { ms: Number(need(arg, 'milliseconds')) }];
    default: throw new Error(`unknown command "${positional.join(' ')}"`);
  }
}

async function main(argv: string[]): Promise<number> {
  const { positional, flags } = parseArgs(argv);
  if (positional.length === 0 || flags.help) {
    process.stdout.write(USAGE + '\n');
    return positional.length === 0 && !flags.help ? 2 : 0;
  }
  if (positional[0] === 'backup') {
    const target = positional[1];
    if (!target || positional.length > 2) throw new Error('usage: blueline backup FILE');
    try {
      process.stdout.write(backupNote(process.env, await backupSqlite(process.env, target)) + '\n');
      return 0;
    } catch (err) {
      // Not a usage mistake: the reason alone.
      process.stderr.write(`blueline: ${(err as Error).message}\n`);
      return 1;
    }
  }
  const [method, urlPath, body] = route(positional, flags);
  const base = (process.env.BLUELINE_URL || 'http://127.0.0.1:8787').replace(/\/+$/, '');
  const parsed = URL.canParse(base) ? new URL(base) : null;
  if (!parsed || !/^https?:$/.test(parsed.protocol)) {
    process.stderr.write('blueline: BLUELINE_URL must be the service\'s http(s) URL, e.g. http://127.0.0.1:8787\n');
    return 1;
  }
  if (parsed.username || parsed.password) {
    // Never quoted back: it holds a password.
    process.stderr.write('blueline: BLUELINE_URL must not contain a user name or password (the admin token is the credential)\n');
    return 1;
  }
  const res = await fetch(base + urlPath, {
    method,
    headers: { authorization: `Bearer ${adminToken()}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  }).catch((err: Error & { cause?: { code?: string; message?: string } }) => {
    // Not a usage mistake: where it tried and why it failed (fetch's own message is "fetch failed").
    process.stderr.write(`blueline: could not reach the service at ${base}: ${err.cause?.code ?? err.cause?.message ?? err.message}\n`);
    return undefined;
  });
  if (!res) return 1;
  const text = await res.text();
  let out = text;
  try {
    out = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    /* not JSON: print as is */
  }
  (res.ok ? process.stdout : process.stderr).write(out + '\n');
  return res.ok ? 0 : 1;
}

const invokedDirectly = process.argv[1] && /cli[\\/]main\.[jt]s$/.test(fs.realpathSync(process.argv[1]));
if (invokedDirectly) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: Error) => {
      process.stderr.write(`blueline: ${err.message}\n${USAGE}\n`);
      process.exit(2);
    },
  );
}
