/**
 * `blueline backup FILE`: a consistent copy of the SQLite store, taken while the service runs,
 * with nothing to install (SQLite's online backup through better-sqlite3, which the service
 * already uses; the `sqlite3` shell is often not on a server). It runs on the service's machine,
 * against DATA_DIR, not through the admin API: a backup belongs on the operator's disk, not in
 * an HTTP answer. PostgreSQL has pg_dump.
 */
import fs from 'node:fs';
import path from 'node:path';
import { openSqlite } from '../store/sqlite-handles.js';

export interface BackupResult {
  file: string;
  bytes: number;
}

export async function backupSqlite(env: NodeJS.ProcessEnv, target: string): Promise<BackupResult> {
  if (env.DATABASE_URL) {
    throw new Error('DATABASE_URL is set: this service keeps its data in PostgreSQL; back it up with pg_dump --format=custom "$DATABASE_URL"');
  }
  const dataDir = path.resolve(env.DATA_DIR || './data');
  const source = path.join(dataDir, 'blueline.sqlite');
  if (!fs.existsSync(source)) throw new Error(`no database at ${source} (set DATA_DIR to the service's data directory)`);
  const file = path.resolve(target);
  if (!fs.existsSync(path.dirname(file))) throw new Error(`no directory ${path.dirname(file)}`);
  // Created first, exclusively and readable by its owner only, like the database it copies (the
  // copy holds the same hashed tokens and encrypted secrets): never over an existing file, as a
  // mistyped path must not destroy an earlier backup. SQLite takes an empty file as an empty database.
  try {
    fs.closeSync(fs.openSync(file, 'wx', 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new Error(`${file} exists; name a new file`);
    throw err;
  }
  // Read-only, with the service's busy wait: the service may be writing meanwhile (WAL mode lets both).
  // Opened through sqlite-handles.ts like every SQLite handle (it says why, for Node 24).
  try {
    const { db } = openSqlite(source, { readonly: true, fileMustExist: true, timeout: 5000 });
    try {
      await db.backup(file);
    } finally {
      db.close();
    }
  } catch (err) {
    fs.rmSync(file, { force: true });
    throw err;
  }
  // The copy is in the service's WAL mode: made a rollback-journal database, it is one file that
  // opens without -wal and -shm files beside it (opening it read-only in WAL mode makes both).
  const copy = openSqlite(file);
  try {
    copy.db.exec('pragma journal_mode = delete');
    const check = (copy.statement('pragma quick_check').get() as { quick_check: string } | undefined)?.quick_check;
    if (check !== 'ok') throw new Error(`the copy at ${file} failed SQLite's quick_check (${String(check)}); it is not a usable backup`);
  } finally {
    copy.db.close();
  }
  return { file, bytes: fs.statSync(file).size };
}

/** What the operator must keep with the copy, which holds secrets only in encrypted form. */
export function backupNote(env: NodeJS.ProcessEnv, r: BackupResult): string {
  const key = env.BLUELINE_MASTER_KEY ? 'BLUELINE_MASTER_KEY' : path.join(path.resolve(env.DATA_DIR || './data'), 'master.key');
  return [
    `backed up the database to ${r.file} (${r.bytes} bytes), checked`,
    `keep ${key} too, stored apart from the copy: without it the copy's secrets cannot be read`,
    `files (attachments, voice notes, inbound media) are not in the copy: back up DATA_DIR/blobs or the bucket at the same time`,
  ].join('\n');
}
