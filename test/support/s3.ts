/**
 * A real S3-protocol server on loopback (s3rver: an S3 API over a directory, with
 * SigV4 checks), with one bucket, for the S3 blob store's tests. The env is what an
 * operator would set, so apps built from it read the same variables as production.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto, { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import S3rver from '@20minutes/s3rver';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { loadConfig } from '../../src/config.js';
import { openBlobStore } from '../../src/blobs/open.js';

export const S3_BUCKET = 'blueline-test';

export interface TestS3 {
  /** BLUELINE_BLOB_URL (a fresh prefix) and the AWS_* variables for this server. */
  env: Record<string, string>;
  endpoint: string;
  /** Every object key in the bucket under `prefix` (default: the env's), relative to it: what a reader could see. */
  visibleKeys(prefix?: string): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * SigV4 signs the path as sent, and the SDK sends a bucket-level request (ListObjectsV2, which the
 * housekeeping sweep makes) as `/bucket/`; s3rver signs `/bucket` instead and refuses the request.
 * This puts the trailing slash back in s3rver's canonical request when the path had one, so the
 * server checks signatures as S3 does (a wrong one still fails). The path is found by the request's
 * headers object, the one s3rver hands to its signing code.
 */
const pathsSent = new WeakMap<object, string>();
function signBucketLevelPathsAsSent() {
  const v4 = createRequire(import.meta.url)('@20minutes/s3rver/lib/signature/v4.js') as {
    getStringToSign(req: { uri: string; headers: object }, sig: unknown): string;
  };
  const original = v4.getStringToSign;
  v4.getStringToSign = (req, sig) => {
    const sent = pathsSent.get(req.headers);
    return original(sent === `${req.uri}/` ? { ...req, uri: sent } : req, sig);
  };
}

/**
 * s3rver encrypts its ListObjectsV2 continuation tokens with single DES, which OpenSSL 3 leaves out
 * (a listing past one page would answer 500). Triple DES with the one key three times is the same
 * cipher, so the tokens stay what s3rver makes of them; nothing else here asks for 'des'.
 */
function provideSingleDes() {
  const c = crypto as unknown as Record<'createCipheriv' | 'createDecipheriv', (alg: string, key: Buffer, iv: Buffer) => unknown>;
  for (const name of ['createCipheriv', 'createDecipheriv'] as const) {
    const original = c[name];
    c[name] = (alg, key, iv) => (alg === 'des' ? original('des-ede3-cbc', Buffer.concat([key, key, key]), iv) : original(alg, key, iv));
  }
}

let patched = false;
/** What s3rver does differently from S3 in the requests the service makes, put right. */
function patchStandIn(server: S3rver) {
  server.middleware.unshift((ctx, next) => {
    pathsSent.set(ctx.headers, ctx.path);
    return next();
  });
  if (patched) return;
  patched = true;
  signBucketLevelPathsAsSent();
  provideSingleDes();
}

export async function startS3(): Promise<TestS3> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, vhostBuckets: false, configureBuckets: [{ name: S3_BUCKET }] });
  patchStandIn(server);
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const prefix = `run-${randomBytes(4).toString('hex')}`;
  const env = {
    BLUELINE_BLOB_URL: `s3://${S3_BUCKET}/${prefix}`,
    AWS_ENDPOINT_URL_S3: endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    BLUELINE_S3_PATH_STYLE: '1',
    AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
  };
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  return {
    env,
    endpoint,
    async visibleKeys(under = `${prefix}/`) {
      const keys: string[] = [];
      let ContinuationToken: string | undefined;
      do {
        const res = await client.send(new ListObjectsV2Command({ Bucket: S3_BUCKET, Prefix: under, ContinuationToken }));
        keys.push(...(res.Contents ?? []).map((o) => o.Key!.slice(under.length)));
        ContinuationToken = res.NextContinuationToken;
      } while (ContinuationToken);
      return keys;
    },
    async close() {
      client.destroy();
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The S3 blob store an app would open from `env`. */
export function s3StoreFromEnv(env: Record<string, string>) {
  return openBlobStore(loadConfig(env));
}
