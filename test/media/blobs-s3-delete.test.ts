/**
 * Deleting a blob that is missing already succeeds in the S3 store whichever way the bucket
 * answers: S3 itself answers 204, some S3-compatible stores 404 NoSuchKey. Housekeeping relies on
 * it: a delete retried after a crash, or racing another process, must not fail the pass.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3BlobStore, type S3BlobStore } from '../../src/blobs/s3.js';

/** A bucket that has no objects, answering DELETE as a store that reports a missing key does. */
let server: http.Server;
let status = 404;
const seen: string[] = [];
beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    req.resume();
    if (status === 404) {
      res.writeHead(404, { 'content-type': 'application/xml' });
      return res.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>');
    }
    res.writeHead(status, { 'content-type': 'application/xml' });
    res.end(status === 403 ? '<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>' : '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

describe('deleting a missing blob in a bucket', () => {
  let store: S3BlobStore;
  beforeAll(() => {
    const { port } = server.address() as AddressInfo;
    store = s3BlobStore({
      bucket: 'b', prefix: 'p/',
      client: { endpoint: `http://127.0.0.1:${port}`, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'k', secretAccessKey: 's' }, maxAttempts: 1 },
    });
  });
  afterAll(() => store.close());

  it('succeeds when the store answers 404 NoSuchKey', async () => {
    status = 404;
    await expect(store.delete('att/gone.0123')).resolves.toBeUndefined();
    expect(seen.at(-1)).toMatch(/^DELETE \/b\/p\/att\/gone\.0123(\?|$)/);
  });

  it('succeeds on 204, and still fails on a refusal (so housekeeping tries again)', async () => {
    status = 204;
    await expect(store.delete('att/gone.0123')).resolves.toBeUndefined();
    status = 403;
    await expect(store.delete('att/gone.0123')).rejects.toThrow();
  });
});
