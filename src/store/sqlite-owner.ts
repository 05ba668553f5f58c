/**
 * One service process per SQLite database.
 *
 * SQLite takes one writer at a time, and this service keeps a write transaction open across a
 * turn of the event loop (group commit): a second process on the same file gets "database is
 * locked" at random and answers 500s. Several processes are for PostgreSQL. So the service owns
 * its SQLite file through a lock file naming its process id; a second process refuses to start
 * and says why. A lock left by a process that is gone (a crash, SIGKILL) is taken over.
 *
 * Process ids are reused (after a reboot, or over time), so the lock also records which process
 * it was: the boot and the process's start time (Linux /proc). A live process with the lock's id
 * but another identity is not the owner. Where /proc is missing, the id alone decides.
 */
import fs from 'node:fs';

export class SqliteInUseError extends Error {}

/** Whether a process with this id runs on this machine (EPERM: it runs, as another user). */
export function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The boot and start time of a process (`<boot id>/<start ticks>`), or undefined where /proc cannot tell. */
function identityOf(pid: number): string | undefined {
  try {
    const boot = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // starttime is field 22; fields are counted after the command's closing parenthesis (it may hold spaces).
    const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    return boot && start ? `${boot}/${start}` : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the lock's owner still runs: its id is alive and, where both are known, it is the same process. */
function ownerRuns(owner: { pid: number; identity?: string }): boolean {
  if (!running(owner.pid)) return false;
  if (owner.identity === undefined) return true;
  const now = identityOf(owner.pid);
  return now === undefined || now === owner.identity;
}

/** Takes the database file for this process; throws SqliteInUseError when another live process has it. */
export function ownSqliteFile(sqlitePath: string): { release(): void } {
  const lockPath = `${sqlitePath}.owner`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockPath, `${process.pid} ${identityOf(process.pid) ?? ''}`.trim() + '\n', { flag: 'wx', mode: 0o600 });
      return {
        release() {
          // Only our own lock: a process that took over a lock we thought stale keeps its own.
          if (ownerOf(lockPath)?.pid === process.pid) fs.rmSync(lockPath, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const owner = ownerOf(lockPath);
    if (owner !== undefined && owner.pid !== process.pid && ownerRuns(owner)) {
      throw new SqliteInUseError(
        `another Blueline process (pid ${owner.pid}) is using ${sqlitePath}; SQLite takes one process. ` +
          'Stop it, give this one another DATA_DIR, or run several processes on PostgreSQL (DATABASE_URL).',
      );
    }
    // Left by a process that is gone (or by this one): take it over.
    fs.rmSync(lockPath, { force: true });
  }
  throw new SqliteInUseError(`could not take ${lockPath}: another process is starting on the same database`);
}

/** The lock's `<pid> [<identity>]` (a lock written before identities has the id alone). */
function ownerOf(lockPath: string): { pid: number; identity?: string } | undefined {
  try {
    const [id, identity] = fs.readFileSync(lockPath, 'utf8').trim().split(/\s+/);
    const pid = Number.parseInt(id ?? '', 10);
    return Number.isSafeInteger(pid) && pid > 0 ? { pid, ...(identity && { identity }) } : undefined;
  } catch {
    return undefined;
  }
}
