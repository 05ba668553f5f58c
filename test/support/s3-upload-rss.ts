/**
 * Run as a child process by the S3 tests: streams 100 MiB (fresh 64 KiB chunks, as a socket
 * delivers them) through the S3 blob store configured by this process's env, sampling RSS,
 * and prints `{ bytes, baselineRss, peakRss }` as JSON. A process of its own, so nothing
 * else in a test worker (the S3 server among it) moves the figure.
 */
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { loadConfig } from '../../src/config.js';
import { openBlobStore } from '../../src/blobs/open.js';

const MiB = 1024 * 1024;
const total = Number(process.argv[2] ?? 100) * MiB;
const { blobs, close } = await openBlobStore(loadConfig(process.env));

function source(bytes: number): Readable {
  let sent = 0;
  return new Readable({
    highWaterMark: 64 * 1024,
    read() {
      if (sent >= bytes) return void this.push(null);
      const n = Math.min(64 * 1024, bytes - sent);
      sent += n;
      this.push(randomBytes(n));
    },
  });
}

// Warm up: the SDK's code paths and one multipart upload, so the baseline includes them.
await blobs.put('att/warmup', source(11 * MiB), 20 * MiB);
global.gc?.();
const baselineRss = process.memoryUsage().rss;
let peakRss = baselineRss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 10);
const bytes = await blobs.put('att/hundred', source(total), total);
clearInterval(sampler);
peakRss = Math.max(peakRss, process.memoryUsage().rss);
close();
process.stdout.write(JSON.stringify({ bytes, baselineRss, peakRss }) + '\n');
