/**
 * buildApp(deps): the HTTP service, shared by `main` and the tests. It wires
 * plugins (trace id, JSON body, validation, auth, errors, docs), routes and
 * the background parts (delivery worker, cross-process wake-ups) onto the
 * services of `services.ts`; the caller owns the store, clock and blobs.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ids } from './domain/ids.js';
import './http/types.js';
import { registerJsonBody } from './http/body.js';
import { registerValidation } from './http/validation.js';
import { clientErrorHandler, frameworkErrorHandler, registerErrorHandling } from './http/errors.js';
import { secretPaths } from './http/log-paths.js';
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
import { attachmentRoutes } from './http/routes/attachments/routes.js';
import { voiceNoteRoutes } from './http/routes/attachments/voice-notes.js';
import { eventRoutes } from './http/routes/events/routes.js';
import { bluebubblesWebhookRoute } from './drivers/bluebubbles/index.js';
import { hubspotRoutes } from './http/routes/crm/hubspot/register.js';
import { buildServices, type ServiceDeps, type Services } from './services.js';
import type { PhoneLine } from './store/index.js';

export interface AppDeps extends ServiceDeps {
  adminToken: string;
  /** Whether start-up (the first-start demo sandbox, connecting lines) is over; /readyz waits for it. */
  isStarted?: () => boolean;
}

export { buildServices, type Services };

const EVENTS_CHANNEL = 'blueline_events';

/** JSON routes accept up to 1 MiB; routes that take more say so themselves. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * Fastify answers a longer path parameter itself, before any route schema; ids are capped at
 * 100 characters by the schemas, so this only needs to let them get there (and to the 404).
 */
export const MAX_PARAM_LENGTH = 1000;

export async function buildApp(deps: AppDeps): Promise<{ app: FastifyInstance; services: Services }> {
  const { config, store, clock } = deps;
  // Paths as logged: without the secret segments routes mark (the BlueBubbles webhook token).
  const paths = secretPaths();
  // One line per request, or (the default) per failed request: logged by the error handler,
  // so a successful request pays nothing for it.
  const logRequest = (req: FastifyRequest, reply: FastifyReply) =>
    req.log.info(
      {
        trace_id: req.id,
        method: req.method,
        path: paths.of(req),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        tenant: req.principal?.tenant.slug,
      },
      'request',
    );
  // fastify's own request serializer logs `url` whole; this one is fastify's with the redacted
  // path (for fastify's request lines, were they turned on, and any `{ req }` logged).
  const serializeRequest = (req: FastifyRequest) => ({ method: req.method, url: paths.of(req), host: req.host, remoteAddress: req.ip, remotePort: req.socket?.remotePort });
  const app = Fastify({
    loggerInstance: deps.logger.child({}, { serializers: { req: serializeRequest } }) as unknown as FastifyBaseLogger,
    // Request lines come from our own onResponse hook: one cheap line, no headers.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'trace_id' }),
    // No child logger per request (pino children cost on every request): lines name trace_id themselves.
    childLoggerFactory: (logger) => logger,
    genReqId: () => ids.trace(),
    bodyLimit: DEFAULT_BODY_LIMIT,
    trustProxy: false,
    return503OnClosing: true,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // Routing failures (bad percent-encoding, over-long parameters) in the envelope, with X-Trace-ID.
    // No hook runs for them, onResponse included: the handler writes their request line itself.
    frameworkErrors: frameworkErrorHandler({ onFailure: config.logRequests === 'off' ? undefined : logRequest }),
    clientErrorHandler: clientErrorHandler(() => ids.trace()),
  }).withTypeProvider<TypeBoxTypeProvider>();

  const services = buildServices(deps);

  // Callback-style hooks: no promise per request on the hot path.
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('X-Trace-ID', req.id);
    done();
  });
  if (config.logRequests === 'all') {
    app.addHook('onResponse', (req, reply, done) => {
      logRequest(req, reply);
      done();
    });
  }

  registerJsonBody(app);
  registerValidation(app);
  registerErrorHandling(app, { onFailure: config.logRequests === 'errors' ? logRequest : undefined, paths });
  registerAuth(app, { auth: services.auth, adminToken: deps.adminToken });
  // After authentication and validation, so only well-formed requests spend tokens; attached
  // to the rate-limited routes alone, so no other request pays for the hook.
  const takeRateToken = (req: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
    if (!req.principal) return done();
    services.messaging.limits.takeRateToken(req.principal.tenant).then(() => done(), done);
  };
  app.addHook('onRoute', (route) => {
    if (!route.config?.rateLimited) return;
    route.preHandler = [...(route.preHandler ? [route.preHandler].flat() : []), takeRateToken];
  });
  await registerDocs(app, { brand: config.headerBrand });

  healthRoutes(app, { store, isStarted: deps.isStarted ?? (() => true) });
  listPhoneNumbers(app, services);
  adminAccountRoutes(app, services);
  adminTenantRoutes(app, services);
  adminLineRoutes(app, services);
  adminClockRoutes(app, { clock });
  simulatorRoutes(app, { store, clock, events: services.events, blobs: deps.blobs });
  postSend(app, services);
  chatRoutes(app, services);
  messageRoutes(app, services);
  attachmentRoutes(app, { attachments: services.attachments, config });
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

  await hubspotRoutes(app, services);

  // With PostgreSQL, wake-ups cross processes by LISTEN/NOTIFY; the database stays the truth.
  const notifier = store.database.notifier;
  let unlisten: (() => Promise<void>) | undefined;
  if (notifier) {
    unlisten = await notifier.listen(EVENTS_CHANNEL, (tenantId) => services.bus.fromRemote(tenantId));
    services.bus.connect({ publish: (tenantId) => void notifier.notify(EVENTS_CHANNEL, tenantId).catch(() => {}) });
  }
  if (config.deliveryWorker) {
    services.worker.start();
    services.hubspot?.autoSends.start();
    services.hubspot?.replyPush.start();
  }
  // Before the server waits for open connections to end: an SSE stream would otherwise hold
  // shutdown until the process is killed, the store never closed.
  app.addHook('preClose', async () => services.sse.closeAll());
  app.addHook('onClose', async () => {
    await services.worker.stop();
    await services.hubspot?.autoSends.stop();
    await services.hubspot?.replyPush.stop();
    await unlisten?.();
  });

  await app.ready();
  return { app, services };
}
