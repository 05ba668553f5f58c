/** The configured blob store: `DATA_DIR/blobs`, or the bucket of BLUELINE_BLOB_URL. */
import path from 'node:path';
import type { Config } from '../config.js';
import { fsBlobStore, type BlobStore } from './index.js';

export interface OpenedBlobStore {
  blobs: BlobStore;
  /** Where the blobs live, for the start-up log line (never credentials). */
  where: string;
  /** Resolves once the store answers; rejects with a message an operator can act on. */
  check(): Promise<void>;
  close(): void;
}

export async function openBlobStore(config: Pick<Config, 'blobs' | 'dataDir'>): Promise<OpenedBlobStore> {
  const c = config.blobs;
  if (c.kind === 'fs') {
    const root = path.join(config.dataDir, 'blobs');
    return { blobs: fsBlobStore(root), where: root, check: async () => {}, close: () => {} };
  }
  const where = `s3://${c.bucket}/${c.prefix}`;
  // Loaded only for a bucket: the AWS SDK is a fifth of the service's start-up when unused.
  const { s3BlobStore } = await import('./s3.js');
  const store = s3BlobStore({
    bucket: c.bucket,
    prefix: c.prefix,
    client: {
      region: c.region,
      forcePathStyle: c.pathStyle,
      ...(c.endpoint && { endpoint: c.endpoint }),
      ...(c.credentials && { credentials: c.credentials }),
      ...(c.checksums && { requestChecksumCalculation: c.checksums }),
    },
  });
  return {
    blobs: store,
    where,
    check: () =>
      store.check().catch((err: Error & { name?: string }) => {
        // The SDK's error names the problem (NotFound, Forbidden, ECONNREFUSED), never the credentials.
        throw new Error(`blob bucket ${where} did not answer${c.endpoint ? ` at ${c.endpoint}` : ''}: ${err.name ?? ''} ${err.message}`.trim());
      }),
    close: () => store.close(),
  };
}
