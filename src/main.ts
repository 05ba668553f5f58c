/**
 * Entry point: config → store → app → listen; demo sandbox on first start;
 * graceful shutdown on SIGTERM/SIGINT.
 */
import fs from 'node:fs';
import { createHmac } from 'node:crypto';
import path from 'node:path';
import { ConfigError, loadConfig } from './config.js';
import { systemClock, testClock } from './clock.js';
import { openStore } from './store/index.js';
import { ownSqliteFile, SqliteInUseError } from './store/sqlite-owner.js';
import { buildApp } from './app.js';
import { createLogger, flushLogs } from './logging.js';
import { loadAdminToken, loadMasterKey } from './bootstrap.js';
import { createDemoSandbox } from './domain/accounts-tenants/demo.js';
import { openBlobStore } from './blobs/open.js';
import { firstStartBanner } from './banner.js';

async function main() {
  const config = loadConfig();
  const logger = createLogger({ level: config.logLevel, brand: config.headerBrand });
  // Everything the service writes (the database with its log, blobs, keys) is its user's alone.
  process.umask(0o077);
  fs.mkdirSync(config.dataDir, { recursive: true });
  const loadedKey = loadMasterKey(config);
  const masterKey = loadedKey.key;
  const adminToken = loadAdminToken(config);
  const clock = config.testClock ? testClock() : systemClock();
  const sqlitePath = path.join(config.dataDir, 'blueline.sqlite');
  // One process per SQLite file (sqlite-owner.ts); released at exit, taken over after a crash.
  const owner = config.databaseUrl ? undefined : ownSqliteFile(sqlitePath);
  if (owner) process.once('exit', () => owner.release());
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    pgPipelineConnections: config.pgPipelineConnections,
    sqlitePath,
    masterKey,
    onIdleConnectionError: (err) => logger.warn({ reason: err.message }, 'database closed an idle connection; it will be replaced'),
  }).catch((err: unknown) => {
    if (err instanceof ConfigError) loadedKey.discardIfCreated();
    throw err;
  });
  const blobStore = openBlobStore(config);
  await blobStore.check();
  const { blobs } = blobStore;
  const hookSecret = createHmac('sha256', masterKey).update('bluebubbles-webhook').digest();
  let started = false;
  const { app, services } = await buildApp({ config, store, clock, adminToken, logger, blobs, hookSecret, isStarted: () => started });

  const address = await app.listen({ port: config.port, host: config.host });
  for (const line of await store.lines.list()) services.connectLine(line);
  // Sends a crash left between record and the line's answer: settled from the lines themselves.
  void services.sendReconciler.start();
  const baseUrl = config.publicBaseUrl ?? address;
  logger.info({ address, store: store.database.dialect, blobs: blobStore.where, data_dir: config.dataDir, test_clock: config.testClock }, 'blueline listening');

  if ((await store.accounts.count()) === 0) {
    const demo = await createDemoSandbox(services, { baseUrl, adminToken });
    const demoFile = path.join(config.dataDir, 'demo.json');
    fs.writeFileSync(demoFile, JSON.stringify(demo, null, 2) + '\n', { mode: 0o600 });
    // The one place a secret is printed, and only to a terminal (banner.ts).
    process.stdout.write(firstStartBanner(demo, demoFile, process.stdout.isTTY === true));
  }
  started = true;

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal, grace_ms: config.shutdownGraceMs }, 'shutting down');
    // Requests in flight get BLUELINE_SHUTDOWN_GRACE_MS (by default the body timeout and 5 s
    // more, so a body still allowed to arrive gets its answer); then the process goes anyway.
    const force = setTimeout(() => {
      logger.warn({ signal, grace_ms: config.shutdownGraceMs }, 'shutdown not finished within BLUELINE_SHUTDOWN_GRACE_MS (requests still under way, or the store not closing); exiting with code 1');
      // The exit must not wait on a log stream that cannot drain.
      setTimeout(() => process.exit(1), 1_000).unref();
      void flushLogs(logger).finally(() => process.exit(1));
    }, config.shutdownGraceMs).unref();
    try {
      await services.sendReconciler.stop();
      await app.close();
      await store.close();
      blobStore.close();
    } finally {
      clearTimeout(force);
      await flushLogs(logger);
      process.exit(0);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  const message = err instanceof ConfigError ? `configuration error: ${err.message}` : err instanceof SqliteInUseError ? err.message : (err as Error).stack ?? String(err);
  process.stderr.write(`blueline failed to start: ${message}\n`);
  process.exit(1);
});
