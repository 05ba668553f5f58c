/**
 * The operator CLI (`blueline`, package.json bin) against a real server process:
 * each command reaches the admin API and prints its answer; failures exit non-zero.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { openSqlite } from '../../src/store/sqlite-handles.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entryArgs, projectRoot as root, startServerProcess, type ServerProcess } from '../support/server-process.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('blueline CLI', () => {
  let dataDir: string;
  let server: ServerProcess;
  let url: string;

  const cli = (args: string[], env: Record<string, string> = {}): Promise<Run> =>
    new Promise((resolve) => {
      execFile(
        process.execPath,
        [...entryArgs('cli/main'), ...args],
        // The admin token comes from DATA_DIR/admin-token, as for an operator on the server's machine.
        { cwd: root, env: { ...process.env, BLUELINE_URL: url, DATA_DIR: dataDir, ADMIN_TOKEN: '', ...env } },
        (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
      );
    });

  beforeAll(async () => {
    server = await startServerProcess({ prefix: 'blueline-cli-' });
    ({ url, dataDir } = server);
  });

  afterAll(async () => {
    if (server.child.exitCode === null) {
      const exited = new Promise((r) => server.child.once('exit', r));
      server.child.kill('SIGTERM');
      await exited;
    }
    server.cleanup();
  });

  it('creates an account, a tenant with its settings and a line, and suspends the tenant', async () => {
    const account = await cli(['accounts', 'create', '--name', 'Acme CLI', '--multi-tenant']);
    expect(account.code, account.stderr).toBe(0);
    const created = JSON.parse(account.stdout);
    expect(created.signing_secret).toEqual(expect.any(String));
    expect(created.account).toMatchObject({ name: 'Acme CLI', multi_tenant: true });
    // An account made unverified is verified later from the CLI too.
    const unverified = JSON.parse((await cli(['accounts', 'create', '--name', 'Later Co', '--unverified'])).stdout).account;
    expect(unverified.email_verified).toBe(false);
    const verified = await cli(['accounts', 'update', unverified.id, '--verified', '--name', 'Later Co Ltd']);
    expect(verified.code, verified.stderr).toBe(0);
    expect(JSON.parse((await cli(['accounts', 'get', unverified.id])).stdout).account).toMatchObject({ name: 'Later Co Ltd', email_verified: true });

    const tenant = await cli([
      'tenants', 'create', '--account', created.account.id, '--slug', 'acme-cli', '--timezone', 'America/New_York',
      '--window', '09:00-20:00', '--rate', '5/10', '--daily-cap', '40',
    ]);
    expect(tenant.code, tenant.stderr).toBe(0);
    expect(JSON.parse(tenant.stdout).tenant).toMatchObject({
      slug: 'acme-cli', timezone: 'America/New_York', sending_window: { start: '09:00', end: '20:00' },
      rate_limit: { per_second: 5, burst: 10 }, daily_first_touch_cap: 40, status: 'active',
    });

    const line = await cli(['lines', 'create', '--tenant', 'acme-cli', '--number', '+14155550190']);
    expect(line.code, line.stderr).toBe(0);
    const lineId = JSON.parse(line.stdout).phone_line.id;
    const off = await cli(['lines', 'update', lineId, '--inactive']);
    expect(JSON.parse(off.stdout).phone_line.is_active).toBe(false);
    const lines = JSON.parse((await cli(['lines', 'list'])).stdout);
    expect(JSON.stringify(lines)).toContain('+14155550190');

    const suspended = await cli(['tenants', 'update', 'acme-cli', '--suspend']);
    expect(JSON.parse(suspended.stdout).tenant.status).toBe('suspended');
    // The tenant's own credentials now answer 2005, as the admin API promised.
    const res = await fetch(`${url}/api/v1/phone-numbers`, { headers: { authorization: `Bearer ${created.signing_secret}`, 'x-service-tenant': 'acme-cli' } });
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(2005);
  });

  it('exits non-zero with the API error on stderr for a wrong token, and with usage for an unknown command', async () => {
    const denied = await cli(['tenants', 'list'], { ADMIN_TOKEN: 'not-the-token' });
    expect(denied.code).toBe(1);
    expect(JSON.parse(denied.stderr).error.code).toBe(2004);
    expect(denied.stdout).toBe('');

    // Flags that contradict each other are a usage mistake, not a silent choice of one.
    const both = await cli(['tenants', 'update', 'demo', '--suspend', '--activate']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--suspend and --activate contradict each other');

    // An unreachable service: where it tried and why, not the usage.
    const { freePort } = await import('../support/ports.js');
    const down = await cli(['tenants', 'list'], { BLUELINE_URL: `http://127.0.0.1:${await freePort()}/` });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/^blueline: could not reach the service at http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED\n$/);
    // A password in BLUELINE_URL is refused without being quoted back.
    const withPassword = await cli(['tenants', 'list'], { BLUELINE_URL: url.replace('http://', 'http://ops:hunter2@') });
    expect(withPassword.code).toBe(1);
    expect(withPassword.stderr).toContain('BLUELINE_URL must not contain a user name or password');
    expect(withPassword.stderr).not.toContain('hunter2');

    const unknown = await cli(['tenants', 'explode']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "tenants explode"');
    expect(unknown.stderr).toContain('usage: blueline');
  });

  it('backs up the SQLite store while the service runs, never over an existing file, and sends PostgreSQL users to pg_dump', async () => {
    const made = await cli(['tenants', 'create', '--account', JSON.parse((await cli(['accounts', 'create', '--name', 'Backup Co'])).stdout).account.id, '--slug', 'backup-co']);
    expect(made.code, made.stderr).toBe(0);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-backup-'));
    try {
      const file = path.join(dir, 'copy.sqlite');
      const run = await cli(['backup', file]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain(`backed up the database to ${file}`);
      expect(run.stdout).toContain(path.join(dataDir, 'master.key'));
      // Readable by its owner only, like the database it copies.
      expect(fs.statSync(file).mode & 0o077).toBe(0);
      // One file to keep: nothing beside it (a copy left in WAL mode made -wal and -shm files).
      expect(fs.readdirSync(dir)).toEqual(['copy.sqlite']);
      // The copy is a database of its own holding what the service had (the service kept running).
      const copy = openSqlite(file, { readonly: true });
      try {
        const slugs = (copy.statement('select slug from tenants').all() as { slug: string }[]).map((r) => r.slug);
        expect(slugs).toEqual(expect.arrayContaining(['backup-co', 'demo']));
      } finally {
        copy.db.close();
      }
      const size = fs.statSync(file).size;
      const again = await cli(['backup', file]);
      expect(again.code).toBe(1);
      expect(again.stderr).toBe(`blueline: ${file} exists; name a new file\n`);
      expect(fs.statSync(file).size).toBe(size);

      const pg = await cli(['backup', path.join(dir, 'pg.sqlite')], { DATABASE_URL: 'postgres://db.internal/blueline' });
      expect(pg.code).toBe(1);
      expect(pg.stderr).toContain('pg_dump');
      expect(fs.existsSync(path.join(dir, 'pg.sqlite'))).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
