/**
 * One service process per SQLite database.
 *
 * SQLite takes one writer at a time, and this service keeps a write transaction open across a
 * turn of the event loop (group commit): a second process on the same file gets "database is
 * locked" at random and answers 500s. Several processes are for PostgreSQL. So the service owns
 * its SQLite file through a lock file naming its process id; a second process refuses to start
 * and says why. A lock left by a process that is gone (a crash, SIGKILL) is taken over.
 */
import fs from 'node:fs';

export class SqliteInUseError extends Error {}

/** Whether a process with this id runs on this machine (EPERM: it runs, as another user). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the database file for this process; throws SqliteInUseError when another live process has it. */
export function ownSqliteFile(sqlitePath: string): { release(): void } {
  const lockPath = `${sqlitePath}.owner`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockPath, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      return {
        release() {
          // Only our own lock: a process that took over a lock we thought stale keeps its own.
          if (ownerOf(lockPath) === process.pid) fs.rmSync(lockPath, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const pid = ownerOf(lockPath);
    if (pid !== undefined && pid !== process.pid && running(pid)) {
      throw new SqliteInUseError(
        `another Blueline process (pid ${pid}) is using ${sqlitePath}; SQLite takes one process. ` +
          'Stop it, give this one another DATA_DIR, or run several processes on PostgreSQL (DATABASE_URL).',
      );
    }
    // Left by a process that is gone (or by this one): take it over.
    fs.rmSync(lockPath, { force: true });
  }
  throw new SqliteInUseError(`could not take ${lockPath}: another process is starting on the same database`);
}

function ownerOf(lockPath: string): number | undefined {
  try {
    const pid = Number.parseInt(fs.readFileSync(lockPath, 'utf8'), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
