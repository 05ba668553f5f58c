/**
 * buildApp(deps): the HTTP service, shared by `main` and the tests. It wires
 * plugins (trace id, JSON body, validation, auth, errors, docs) and routes;
 * the caller owns the store and the clock.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config.js';
import type { Clock } from './clock.js';
import type { Store } from './store/index.js';
import { ids } from './domain/ids.js';
import { accountsService } from './domain/accounts-tenants/service.js';
import { authenticator } from './domain/accounts-tenants/auth.js';
import { linesService } from './domain/lines/service.js';
import './http/types.js';
import { registerJsonBody } from './http/body.js';
import { registerValidation } from './http/validation.js';
import { registerErrorHandling } from './http/errors.js';
import { registerAuth } from './http/auth.js';
import { registerDocs } from './http/docs.js';
import { healthRoutes } from './http/routes/health.js';
import { listPhoneNumbers } from './http/routes/phone-numbers/list.js';
import { adminAccountRoutes } from './http/routes/admin/accounts.js';
import { adminTenantRoutes } from './http/routes/admin/tenants.js';
import { adminLineRoutes } from './http/routes/admin/lines.js';
import { adminClockRoutes } from './http/routes/admin/clock.js';
import { simulatorRoutes } from './http/routes/admin/simulator.js';
import { postSend } from './http/routes/send/post.js';
import { chatRoutes } from './http/routes/chats/routes.js';
import { messageRoutes } from './http/routes/messages/routes.js';
import { driverRegistry } from './drivers/registry.js';
import { lineEvents } from './domain/messaging/line-events.js';
import { messaging } from './domain/messaging/index.js';
import { attachmentsService } from './domain/media/attachments.js';
import { attachmentRoutes } from './http/routes/attachments/routes.js';
import { voiceNoteRoutes } from './http/routes/attachments/voice-notes.js';
import { voiceNotesService } from './domain/media/voice-notes.js';
import type { BlobStore } from './blobs/index.js';
import { eventBus } from './domain/events/bus.js';
import { subscriptionsService } from './domain/events/subscriptions.js';
import { eventsService } from './domain/events/service.js';
import { deliveryWorker } from './delivery/worker.js';
import { sseHub } from './delivery/sse.js';
import { eventRoutes } from './http/routes/events/routes.js';
import { bluebubblesDriver, bluebubblesWebhookRoute, registerWebhook, webhookUrlFor } from './drivers/bluebubbles/index.js';
import type { PhoneLine } from './store/index.js';

export interface AppDeps {
  config: Config;
  store: Store;
  clock: Clock;
  adminToken: string;
  logger: Logger;
  blobs: BlobStore;
  /** Keys the per-line BlueBubbles webhook tokens (derived from the master key in main). */
  hookSecret: Buffer;
}

const EVENTS_CHANNEL = 'blueline_events';

/** JSON routes accept up to 1 MiB; routes that take more say so themselves. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

export function buildServices(deps: Pick<AppDeps, 'store' | 'clock' | 'config' | 'blobs' | 'hookSecret' | 'logger'>) {
  const { store, clock, config, blobs } = deps;
  const attachments = attachmentsService({ store, clock, blobs });
  const auth = authenticator({ store, clock, brand: config.headerBrand });
  const bus = eventBus();
  const events = lineEvents({ store, clock, blobs, bus, deepLinkBase: `${config.publicBaseUrl ?? ''}/app` });
  const attempt = { timeoutMs: config.webhookTimeoutMs, allowPrivateNetworks: config.allowPrivateNetworks, brand: config.headerBrand };
  const drivers = driverRegistry({ events, state: store.lineRuntime, now: () => clock.now() }, { bluebubbles: (ctx) => bluebubblesDriver(ctx) });
  /** A BlueBubbles line tells its Mac where to send webhooks (needs PUBLIC_BASE_URL). */
  const connectLine = (line: PhoneLine) => {
    if (line.driver !== 'bluebubbles' || !line.is_active) return;
    if (!config.publicBaseUrl) {
      deps.logger.warn({ line_id: line.id }, 'BlueBubbles line without PUBLIC_BASE_URL: its Mac cannot reach Blueline, inbound messages will not arrive');
      return;
    }
    registerWebhook(drivers.contextFor(line), webhookUrlFor(config.publicBaseUrl, deps.hookSecret, line.id), { removeStale: true }).catch((err: Error) =>
      deps.logger.warn({ line_id: line.id, reason: err.message }, 'could not register the webhook with BlueBubbles; will retry at the next start or line change'),
    );
  };
  const voiceNotes = voiceNotesService({ store, clock, blobs, drivers, allowPrivateNetworks: config.allowPrivateNetworks });
  return {
    accounts: accountsService({ store, clock, secretOverlapMs: config.secretOverlapMs, onChange: auth.invalidate }),
    lines: linesService({ store, clock, onLineSaved: connectLine }),
    connectLine,
    auth,
    events,
    drivers,
    attachments,
    voiceNotes,
    bus,
    subscriptions: subscriptionsService({ store, clock, allowPrivateNetworks: config.allowPrivateNetworks }),
    eventLog: eventsService({ store, clock, attempt }),
    worker: deliveryWorker({ store, clock, bus }, { ...attempt, backoffMs: config.webhookBackoffMs, pollMs: config.workerPollMs, leaseMs: Math.max(config.webhookLeaseMs, config.webhookTimeoutMs * 2), batch: 32 }),
    sse: sseHub({ store, bus }, { maxMs: config.sseMaxMs, heartbeatMs: config.sseHeartbeatMs, pollMs: config.ssePollMs }),
    messaging: messaging({
      store,
      clock,
      drivers,
      media: { attachments: (tenantId, ids) => attachments.resolve(tenantId, ids), voiceNote: (tenantId, lineId, id) => voiceNotes.resolve(tenantId, lineId, id) },
    }),
  };
}

export type Services = ReturnType<typeof buildServices>;

export async function buildApp(deps: AppDeps): Promise<{ app: FastifyInstance; services: Services }> {
  const { config, store, clock } = deps;
  const app = Fastify({
    loggerInstance: deps.logger as unknown as FastifyBaseLogger,
    // Request lines come from our own onResponse hook: one cheap line, no headers.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'trace_id' }),
    // No child logger per request (pino children cost on every request): lines name trace_id themselves.
    childLoggerFactory: (logger) => logger,
    genReqId: () => ids.trace(),
    bodyLimit: DEFAULT_BODY_LIMIT,
    trustProxy: false,
    return503OnClosing: true,
  }).withTypeProvider<TypeBoxTypeProvider>();

  const services = buildServices(deps);

  // Callback-style hooks: no promise per request on the hot path.
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('X-Trace-ID', req.id);
    done();
  });
  if (config.logRequests !== 'off') {
    const minStatus = config.logRequests === 'all' ? 0 : 400;
    app.addHook('onResponse', (req, reply, done) => {
      if (reply.statusCode >= minStatus) logRequest(req, reply);
      done();
    });
    const logRequest = (req: FastifyRequest, reply: FastifyReply) =>
      req.log.info(
        {
          trace_id: req.id,
          method: req.method,
          path: req.url.split('?')[0],
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime * 10) / 10,
          tenant: req.principal?.tenant.slug,
        },
        'request',
      );
  }

  registerJsonBody(app);
  registerValidation(app);
  registerErrorHandling(app);
  registerAuth(app, { auth: services.auth, adminToken: deps.adminToken });
  // After authentication and validation, so only well-formed requests spend tokens.
  app.addHook('preHandler', (req, _reply, done) => {
    if (!req.routeOptions.config?.rateLimited || !req.principal) return done();
    services.messaging.limits.takeRateToken(req.principal.tenant).then(() => done(), done);
  });
  await registerDocs(app, { brand: config.headerBrand });

  healthRoutes(app, { store });
  listPhoneNumbers(app, services);
  adminAccountRoutes(app, services);
  adminTenantRoutes(app, services);
  adminLineRoutes(app, services);
  adminClockRoutes(app, { clock });
  simulatorRoutes(app, { store, clock, events: services.events, blobs: deps.blobs });
  attachmentRoutes(app, { attachments: services.attachments, publicBaseUrl: config.publicBaseUrl });
  voiceNoteRoutes(app, services);
  eventRoutes(app, { events: services.eventLog, subscriptions: services.subscriptions, sse: services.sse, clock });
  bluebubblesWebhookRoute(app, {
    secret: deps.hookSecret,
    resolveLine: async (id) => {
      const line = await store.lines.get(id);
      return line && line.driver === 'bluebubbles' ? line : undefined;
    },
    contextFor: (line) => services.drivers.contextFor(line as PhoneLine),
  });

  // With PostgreSQL, wake-ups cross processes by LISTEN/NOTIFY; the database stays the truth.
  const notifier = store.database.notifier;
  let unlisten: (() => Promise<void>) | undefined;
  if (notifier) {
    unlisten = await notifier.listen(EVENTS_CHANNEL, (tenantId) => services.bus.fromRemote(tenantId));
    services.bus.connect({ publish: (tenantId) => void notifier.notify(EVENTS_CHANNEL, tenantId).catch(() => {}) });
  }
  if (config.deliveryWorker) services.worker.start();
  app.addHook('onClose', async () => {
    services.sse.closeAll();
    await services.worker.stop();
    await unlisten?.();
  });
  postSend(app, services);
  chatRoutes(app, services);
  messageRoutes(app, services);

  await app.ready();
  return { app, services };
}
