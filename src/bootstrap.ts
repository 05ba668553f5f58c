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

export function loadMasterKey(config: Config): Buffer {
  const raw = config.masterKey ?? readOrCreate(path.join(config.dataDir, 'master.key'), () => randomBytes(32).toString('base64')).value;
  const key = Buffer.from(raw, 'base64');
  if (key.length !== 32) throw new ConfigError('BLUELINE_MASTER_KEY must be 32 bytes, base64-encoded');
  return key;
}

export function loadAdminToken(config: Config): string {
  if (config.adminToken) return config.adminToken;
  return readOrCreate(path.join(config.dataDir, 'admin-token'), () => `bl_admin_${randomBytes(24).toString('base64url')}`).value;
}
