/**
 * Encrypts secrets at rest (AES-256-GCM under the master key) and derives the
 * keyed lookup hash used to find an account by its bearer token.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { ConfigError } from '../config.js';
import type { DB } from './schema.js';

export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
  lookupHash(secret: string): string;
}

/** Opened secrets kept per sealed form (which determines its plaintext): webhook and line secrets are opened on every delivery and send. */
const OPENED_CACHE_SIZE = 1000;

export function secretBox(masterKey: Buffer): SecretBox {
  if (masterKey.length !== 32) throw new Error('master key must be 32 bytes');
  const opened = new Map<string, string>();
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', masterKey, iv);
      const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), ct.toString('base64')].join(':');
    },
    open(sealed) {
      const known = opened.get(sealed);
      if (known !== undefined) return known;
      const plain = openSealed(masterKey, sealed);
      if (opened.size >= OPENED_CACHE_SIZE) opened.delete(opened.keys().next().value!);
      opened.set(sealed, plain);
      return plain;
    },
    lookupHash(secret) {
      return createHmac('sha256', masterKey).update('lookup:').update(secret).digest('hex');
    },
  };
}

function openSealed(masterKey: Buffer, sealed: string): string {
  const [version, iv, tag, ct] = sealed.split(':');
  if (version !== 'v1' || !iv || !tag || ct === undefined) throw new Error('unrecognized sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', masterKey, Buffer.from(iv, 'base64'));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64')), decipher.final()]).toString('utf8');
}

/**
 * Refuses a master key that does not open the secrets already stored: with another key (a restore
 * without its master.key, a process started without the shared BLUELINE_MASTER_KEY) the service
 * would start and report ready, then fail every request's authentication.
 */
export async function checkMasterKey(db: Kysely<DB>, box: SecretBox): Promise<void> {
  const row = await db.selectFrom('account_secrets').select('secret_enc').limit(1).executeTakeFirst();
  if (!row) return;
  try {
    box.open(row.secret_enc);
  } catch {
    throw new ConfigError(
      'the master key (BLUELINE_MASTER_KEY, else DATA_DIR/master.key) does not open the secrets stored in this database: ' +
        'start with the key it was created with (every process on one database shares it; a restored backup needs its master.key)',
    );
  }
}
