/**
 * A running app over a real store, with the demo sandbox and a test clock, for
 * route tests. Requests go through fastify's inject (the full HTTP pipeline,
 * no socket) unless a test listens on loopback itself.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fsBlobStore, type BlobStore } from '../../src/blobs/index.js';
import { openBlobStore } from '../../src/blobs/open.js';
import { createHmac } from 'node:crypto';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp, type Services } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { systemClock, testClock } from '../../src/clock.js';
import { createLogger } from '../../src/logging.js';
import { createDemoSandbox, type DemoSandbox } from '../../src/domain/accounts-tenants/demo.js';
import type { IdentifyLimits } from '../../src/domain/accounts-tenants/signature-owner.js';
import type { AddressGuard } from '../../src/net/index.js';
import { createTestStore, joinTestStore, type StoreKind, type TestStore } from './stores.js';

export interface TestApp {
  app: FastifyInstance;
  services: Services;
  testStore: TestStore;
  clock: ReturnType<typeof testClock>;
  config: Config;
  /** The app's blob store (a temp directory, or the bucket of BLUELINE_BLOB_URL). */
  blobs: BlobStore;
  adminToken: string;
  demo: DemoSandbox;
  /** Every log line the app wrote, as text. */
  logs: string[];
  request(opts: InjectOptions): Promise<LightMyRequestResponse>;
  /** Bearer request as the demo tenant (or the given secret/tenant). */
  api(method: string, url: string, body?: unknown, opts?: { secret?: string; tenant?: string; headers?: Record<string, string> }): Promise<LightMyRequestResponse>;
  admin(method: string, url: string, body?: unknown): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export const ADMIN_TOKEN = 'test-admin-token-0123456789';
export const HOOK_SECRET = Buffer.from('test-bluebubbles-hook-secret');

/**
 * `join`: a second app (as another process would be) on the same database as
 * an existing one, sharing its demo sandbox.
 */
export async function startTestApp(kind: StoreKind = 'sqlite', env: Record<string, string> = {}, opts: { join?: TestApp; addressGuard?: AddressGuard; identifyLimits?: IdentifyLimits } = {}): Promise<TestApp> {
  const testStore = opts.join ? await joinTestStore(opts.join.testStore) : await createTestStore(kind);
  const config = loadConfig({ BLUELINE_TEST_CLOCK: '1', LOG_LEVEL: 'debug', BLUELINE_LOG_REQUESTS: 'all', ...env });
  const clock = testClock();
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      logs.push(chunk.toString());
      cb();
    },
  });
  const logger = createLogger({ level: config.logLevel, brand: config.headerBrand, stream });
  const appClock = config.testClock ? clock : systemClock();
  // BLUELINE_BLOB_URL in `env` (see support/s3.ts) puts the blobs in a bucket; else a temp directory.
  const blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-blobs-'));
  const s3 = config.blobs.kind === 's3' ? await openBlobStore(config) : undefined;
  const blobs = s3?.blobs ?? fsBlobStore(blobDir);
  const { app, services } = await buildApp({ config, store: testStore.store, clock: appClock, adminToken: ADMIN_TOKEN, logger, blobs, hookSecret: HOOK_SECRET, addressGuard: opts.addressGuard, identifyLimits: opts.identifyLimits });
  const demo = opts.join ? opts.join.demo : await createDemoSandbox(services, { baseUrl: 'http://127.0.0.1', adminToken: ADMIN_TOKEN });
  const request = (opts: InjectOptions) => app.inject(opts);
  return {
    app,
    services,
    testStore,
    clock,
    config,
    blobs,
    adminToken: ADMIN_TOKEN,
    demo,
    logs,
    request,
    api(method, url, body, opts = {}) {
      const headers: Record<string, string> = { authorization: `Bearer ${opts.secret ?? demo.signing_secret}`, ...opts.headers };
      if (opts.tenant) headers[`x-${config.headerBrand}-tenant`] = opts.tenant;
      return request({ method: method as InjectOptions['method'], url, headers, ...(body !== undefined && { payload: body as object }) });
    },
    admin(method, url, body) {
      return request({
        method: method as InjectOptions['method'],
        url,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        ...(body !== undefined && { payload: body as object }),
      });
    },
    async close() {
      // The temporary directory goes even when a close fails (a test that broke its store).
      try {
        await app.close();
        await testStore.cleanup();
      } finally {
        s3?.close();
        fs.rmSync(blobDir, { recursive: true, force: true });
      }
    },
  };
}

/** An independent implementation of the request signature, for tests. */
export function signRequest(secret: string, rawBody: string, tsSeconds = Math.floor(Date.now() / 1000)): string {
  const hex = createHmac('sha256', secret).update(`${tsSeconds}.${rawBody}`).digest('hex');
  return `v1,${tsSeconds},${hex}`;
}
