/**
 * One service process per SQLite file: a second one refuses to start and says why; a crashed
 * owner's lock is taken over; a clean stop leaves none. Real service processes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { ownSqliteFile, SqliteInUseError } from '../../src/store/sqlite-owner.js';
import { SERVICE_START_MS, SERVICE_TEST_MS, spawnService, startServerProcess, type ServerProcess } from '../support/server-process.js';
import { freePort } from '../support/ports.js';

const procs: ServerProcess[] = [];
/** The process id a lock file names (its first word). */
const lockPid = (file: string) => fs.readFileSync(file, 'utf8').trim().split(/\s+/)[0];
afterAll(() => procs.forEach((p) => p.cleanup()));

/** The service on `dataDir` until it exits: its exit code and what it wrote to stderr. */
async function runToExit(dataDir: string): Promise<{ code: number | null; stderr: string }> {
  const child = spawnService({ PORT: String(await freePort()), DATA_DIR: dataDir }, ['ignore', 'ignore', 'pipe']);
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  // It refuses as soon as it has loaded; the deadline only bounds one that never exits.
  const timer = setTimeout(() => child.kill('SIGKILL'), SERVICE_START_MS);
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  clearTimeout(timer);
  return { code, stderr };
}

describe('one service process per SQLite file', () => {
  // Four service processes one after another: seconds each on a quiet machine, far more on a loaded one.
  it('refuses a second process on the same database, takes over after a crash, leaves no lock after a clean stop', { timeout: SERVICE_TEST_MS }, async () => {
    const first = await startServerProcess({ prefix: 'blueline-owner-' });
    procs.push(first);
    const lock = path.join(first.dataDir, 'blueline.sqlite.owner');
    expect(lockPid(lock)).toBe(String(first.child.pid));

    const second = await runToExit(first.dataDir);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`another Blueline process (pid ${first.child.pid}) is using`);
    expect(second.stderr).toContain('DATABASE_URL');
    // The first one still serves.
    expect((await fetch(`${first.url}/readyz`)).status).toBe(200);

    // A crash leaves the lock behind; the next start takes it over.
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));
    expect(fs.existsSync(lock)).toBe(true);
    const third = await startServerProcess({ prefix: 'blueline-owner-', dataDir: first.dataDir });
    procs.push(third);
    expect(lockPid(lock)).toBe(String(third.child.pid));

    // A clean stop removes it.
    third.child.kill('SIGTERM');
    expect(await new Promise((r) => third.child.once('exit', r))).toBe(0);
    expect(fs.existsSync(lock)).toBe(false);
  });

  it("in process: a lock naming a process that is gone is taken over; a live one's is not", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-owner-unit-'));
    const db = path.join(dir, 'blueline.sqlite');
    try {
      // The id of a process that has exited.
      const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
      fs.writeFileSync(`${db}.owner`, `${gone}\n`);
      const owner = ownSqliteFile(db);
      expect(lockPid(`${db}.owner`)).toBe(String(process.pid));
      owner.release();
      expect(fs.existsSync(`${db}.owner`)).toBe(false);

      // The parent of this test process is alive.
      fs.writeFileSync(`${db}.owner`, `${process.ppid}\n`);
      expect(() => ownSqliteFile(db)).toThrow(SqliteInUseError);
      expect(fs.readFileSync(`${db}.owner`, 'utf8').trim()).toBe(String(process.ppid));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it.runIf(fs.existsSync('/proc/self/stat'))('in process: a lock whose id now belongs to another live process (ids are reused after a reboot) is taken over', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-owner-reused-'));
    const db = path.join(dir, 'blueline.sqlite');
    try {
      // What this process's own lock records: its id, the boot and its start time.
      const owner = ownSqliteFile(db);
      const [, identity] = fs.readFileSync(`${db}.owner`, 'utf8').trim().split(/\s+/);
      expect(identity).toMatch(/^[0-9a-f-]{36}\/\d+$/);
      owner.release();

      // A live process (the parent) named with an identity that is not its own: a crashed owner's
      // lock from before a reboot, its id since given to something else.
      const [boot, start] = identity!.split('/');
      for (const stale of [`${boot}/${Number(start) + 1}`, `00000000-0000-0000-0000-000000000000/${start}`]) {
        fs.writeFileSync(`${db}.owner`, `${process.ppid} ${stale}\n`);
        const taken = ownSqliteFile(db);
        expect(lockPid(`${db}.owner`)).toBe(String(process.pid));
        taken.release();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
