/**
 * Blobs in an S3-compatible bucket, so every process behind a load balancer sees
 * the same files. Uploads stream through a multipart upload in bounded parts
 * (never the whole file in memory); an object becomes visible only when the
 * upload completes, so a failed, oversized or interrupted upload leaves nothing
 * a reader can see (its parts are aborted; a bucket lifecycle rule catches the
 * parts of a process that died mid-upload). Reads stream, ranged when asked.
 */
import { randomBytes } from 'node:crypto';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { BlobStoreFailure, BlobTooLarge, isSafeBlobKey, safeBlobKey, type BlobStore } from './index.js';

const MiB = 1024 * 1024;
/** S3's smallest part; with two parts in flight an upload holds about 3 parts in memory. */
const PART_BYTES = 5 * MiB;
const PARTS_IN_FLIGHT = 2;
const MAX_PARTS = 10_000;
/** Keys per listing request: S3's most. */
const LIST_PAGE = 1000;

export interface S3BlobOptions {
  bucket: string;
  /** '' or ending in '/'. */
  prefix: string;
  client: S3ClientConfig;
}

export interface S3BlobStore extends BlobStore {
  /** Fails unless the bucket takes a write and a delete (checked at start, so a misconfiguration is seen at once). */
  check(): Promise<void>;
  close(): void;
}

const isNotFound = (err: unknown) => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
};

export function s3BlobStore(opts: S3BlobOptions): S3BlobStore {
  const client = new S3Client(opts.client);
  const Bucket = opts.bucket;
  const keyOf = (key: string) => opts.prefix + safeBlobKey(key);

  async function headSize(key: string): Promise<number | undefined> {
    try {
      return (await client.send(new HeadObjectCommand({ Bucket, Key: keyOf(key) }))).ContentLength;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  return {
    async put(key, source, maxBytes) {
      const Key = keyOf(key);
      let bytes = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _enc, cb) {
          bytes += chunk.length;
          if (bytes > maxBytes) return cb(new BlobTooLarge(`more than ${maxBytes} bytes`));
          cb(null, chunk);
        },
      });
      const upload = new Upload({
        client,
        params: { Bucket, Key, Body: counter, ContentType: 'application/octet-stream' },
        partSize: Math.max(PART_BYTES, Math.ceil(maxBytes / MAX_PARTS)),
        queueSize: PARTS_IN_FLIGHT,
        leavePartsOnError: false,
      });
      // A source failure (a client gone mid-body, the size limit) fails the counter and so the
      // upload, and lib-storage aborts the multipart upload; that failure is the one to report,
      // even when the abort itself fails too (a lifecycle rule removes such parts).
      let sourceFailure: unknown;
      counter.once('error', (err) => (sourceFailure ??= err));
      const feeding = pipeline(source, counter);
      feeding.catch(() => {}); // awaited below
      try {
        await upload.done();
        await feeding;
      } catch (err) {
        // Read before stopping the source: stopping it fails the counter too.
        const fromSource = sourceFailure;
        // The store may have failed first: stop reading the source (ending the counter ends it).
        counter.destroy();
        await feeding.catch(() => {});
        if (fromSource !== undefined) throw fromSource;
        throw new BlobStoreFailure(err);
      }
      // The store's own count of what it kept must match what went in.
      const stored = await headSize(key).catch((err) => {
        throw new BlobStoreFailure(err);
      });
      if (stored !== bytes) {
        await client.send(new DeleteObjectCommand({ Bucket, Key })).catch(() => {});
        throw new BlobStoreFailure(new Error(`blob store kept ${stored ?? 'no'} bytes of the ${bytes} sent`));
      }
      return bytes;
    },
    async putBuffer(key, bytes) {
      await client.send(new PutObjectCommand({ Bucket, Key: keyOf(key), Body: bytes, ContentLength: bytes.length, ContentType: 'application/octet-stream' }));
    },
    open(key, range) {
      const Key = keyOf(key);
      return lazyStream((abortSignal) =>
        client
          .send(new GetObjectCommand({ Bucket, Key, ...(range && { Range: `bytes=${range.start}-${range.end}` }) }), { abortSignal })
          .then((res) => res.Body as Readable),
      );
    },
    size: headSize,
    async read(key) {
      const res = await client.send(new GetObjectCommand({ Bucket, Key: keyOf(key) }));
      return Buffer.from(await res.Body!.transformToByteArray());
    },
    async delete(key) {
      try {
        await client.send(new DeleteObjectCommand({ Bucket, Key: keyOf(key) }));
      } catch (err) {
        // S3 answers 204 for a missing key, but some S3-compatible stores answer 404 NoSuchKey:
        // either way the object is gone, which is what the caller (housekeeping's retry) wants.
        if (!isNotFound(err)) throw err;
      }
    },
    async *list() {
      // One request per page, made when the caller reads past the previous one.
      let ContinuationToken: string | undefined;
      do {
        const res = await client.send(new ListObjectsV2Command({ Bucket, Prefix: opts.prefix || undefined, MaxKeys: LIST_PAGE, ContinuationToken }));
        for (const o of res.Contents ?? []) {
          const key = o.Key?.slice(opts.prefix.length);
          if (key === undefined || !o.LastModified || !isSafeBlobKey(key)) continue;
          yield { key, modifiedAt: o.LastModified.getTime() };
        }
        ContinuationToken = res.IsTruncated ? res.NextContinuationToken : undefined;
      } while (ContinuationToken);
    },
    // Incomplete multipart uploads are invisible to reads and listed only by ListMultipartUploads;
    // the bucket's lifecycle rule (AbortIncompleteMultipartUpload) removes them.
    deleteStaleTemporaries: async () => 0,
    async check() {
      // Writes and deletes a probe: the permissions every request needs (the housekeeping sweep
      // also lists the bucket, s3:ListBucket; without it only that sweep fails, with a log line).
      const Key = `${opts.prefix}_probe/${randomBytes(8).toString('hex')}`;
      await client.send(new PutObjectCommand({ Bucket, Key, Body: Buffer.alloc(0), ContentLength: 0 }));
      await client.send(new DeleteObjectCommand({ Bucket, Key }));
    },
    close: () => client.destroy(),
  };
}

/**
 * A stream at once (as `fs.createReadStream` gives) whose bytes come from a request made
 * on first read; destroying it early aborts the request, so an abandoned download does not
 * keep the connection busy.
 */
function lazyStream(request: (signal: AbortSignal) => Promise<Readable>): Readable {
  const abort = new AbortController();
  let body: Readable | undefined;
  const out: Readable = new Readable({
    construct(cb) {
      request(abort.signal).then((b) => {
        body = b;
        b.on('data', (chunk: Buffer) => {
          if (!out.push(chunk)) b.pause();
        });
        b.once('end', () => out.push(null));
        b.once('error', (err) => out.destroy(err));
        b.pause();
        cb();
        // Given up before the answer came: the failure (the abort, or a missing key) has no reader.
      }, (err: Error) => (out.destroyed ? cb() : cb(err)));
    },
    read() {
      body?.resume();
    },
    destroy(err, cb) {
      if (!out.readableEnded) abort.abort();
      body?.destroy();
      cb(err);
    },
  });
  return out;
}
