/**
 * Start-up pieces that touch DATA_DIR: the master key for secrets at rest and
 * the generated admin token. Both are files with mode 0600, created once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Config } from './config.js';
import { ConfigError } from './config.js';

function readOrCreate(file: string, make: () => string): { value: string; created: boolean } {
  try {
    return { value: fs.readFileSync(file, 'utf8').trim(), created: false };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const value = make();
  try {
    fs.writeFileSync(file, value + '\n', { mode: 0o600, flag: 'wx' });
    return { value, created: true };
  } catch (err) {
    // Another process created it first: use theirs.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return readOrCreate(file, make);
    throw err;
  }
}

export interface MasterKey {
  key: Buffer;
  /**
   * Removes a master.key this start created, when the database refused it (it holds secrets
   * sealed under another key: a restore without its master.key). Kept, the file would make the
   * next start refuse for the same reason, and look like the right key to an operator.
   */
  discardIfCreated(): void;
}

export function loadMasterKey(config: Config): MasterKey {
  const file = path.join(config.dataDir, 'master.key');
  const loaded = config.masterKey !== undefined ? { value: config.masterKey, created: false } : readOrCreate(file, () => randomBytes(32).toString('base64'));
  const key = Buffer.from(loaded.value, 'base64');
  if (key.length !== 32) throw new ConfigError('BLUELINE_MASTER_KEY must be 32 bytes, base64-encoded');
  return {
    key,
    discardIfCreated() {
      if (!loaded.created) return;
      // Only ours: never a key another process wrote meanwhile.
      if (fs.readFileSync(file, 'utf8').trim() === loaded.value) fs.rmSync(file, { force: true });
    },
  };
}

export function loadAdminToken(config: Config): string {
  if (config.adminToken) return config.adminToken;
  return readOrCreate(path.join(config.dataDir, 'admin-token'), () => `bl_admin_${randomBytes(24).toString('base64url')}`).value;
}
