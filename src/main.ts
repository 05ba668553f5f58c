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
    onListenChange: (channel, state, err) =>
      state === 'lost'
        ? logger.warn({ channel, reason: err?.message }, 'database LISTEN connection lost: other processes\' wake-ups wait for polling until it is back')
        : logger.info({ channel }, 'database LISTEN connection restored'),
  }).catch((err: unknown) => {
    if (err instanceof ConfigError) loadedKey.discardIfCreated();
    throw err;
  });
  const blobStore = await openBlobStore(config);
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
  // (A database gone again since the migrations: nothing to say about its indexes.)
  if (!(await store.chatList.searchIndexed().catch(() => true))) {
    logger.warn('chat search has no trigram index: this database role could not create the pg_trgm extension, so a search that few chats match reads every chat (README, "Running on PostgreSQL", says how to add it)');
  }

  if (config.demoSandbox && (await store.accounts.count()) === 0) {
    const made = await createDemoSandbox(services, { baseUrl, adminToken });
    // An ADMIN_TOKEN given in the environment came from the operator's secret store: not copied to disk.
    const { admin_token, ...rest } = made;
    const demo = config.adminToken ? rest : { ...rest, admin_token };
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
      logger.info({ signal }, 'stopped');
    } finally {
      clearTimeout(force);
      await flushLogs(logger);
      process.exit(0);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/**
 * One line an operator can act on (a refused database connection, a missing bucket, a port in
 * use), with the error's code; the stack trace only at LOG_LEVEL=debug or trace.
 */
function startFailure(err: unknown): string {
  if (err instanceof ConfigError) return `configuration error: ${err.message}`;
  if (err instanceof SqliteInUseError) return err.message;
  if (!(err instanceof Error)) return String(err);
  // A connection refused on every address of a host is an AggregateError with no message of its own.
  const parts = err instanceof AggregateError && !err.message ? err.errors.map((e: unknown) => (e instanceof Error ? e.message : String(e))) : [err.message || err.name];
  const code = (err as { code?: unknown }).code;
  const line = `${[...new Set(parts)].join('; ')}${typeof code === 'string' && !parts.some((p) => p.includes(code)) ? ` (${code})` : ''}`;
  return ['debug', 'trace'].includes(process.env.LOG_LEVEL ?? '') ? `${line}\n${err.stack}` : line;
}

main().catch((err) => {
  process.stderr.write(`blueline failed to start: ${startFailure(err)}\n`);
  process.exit(1);
});
