/**
 * A real S3-protocol server on loopback (s3rver: an S3 API over a directory, with
 * SigV4 checks), with one bucket, for the S3 blob store's tests. The env is what an
 * operator would set, so apps built from it read the same variables as production.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
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

export async function startS3(): Promise<TestS3> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, vhostBuckets: false, configureBuckets: [{ name: S3_BUCKET }] });
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
  // s3rver signs a bucket-level path without its trailing slash; the SDK signs it with one.
  // Only the tests list the bucket (the service never does), so only this client needs the shim.
  client.middlewareStack.add(
    (next) => async (args) => {
      const req = args.request as { path?: string };
      if (req.path === `/${S3_BUCKET}/`) req.path = `/${S3_BUCKET}`;
      return next(args);
    },
    { step: 'build' },
  );
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
