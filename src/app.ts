/**
 * buildApp(deps): the HTTP service, shared by `main` and the tests. It wires
 * plugins (trace id, JSON body, validation, auth, errors, docs), routes and
 * the background parts (delivery worker, cross-process wake-ups) onto the
 * services of `services.ts`; the caller owns the store, clock and blobs.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest, type onResponseHookHandler } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { ids } from './domain/ids.js';
import './http/types.js';
import { registerJsonBody } from './http/body.js';
import { registerValidation } from './http/validation.js';
import { clientErrorHandler, frameworkErrorHandler, HttpFailure, registerErrorHandling } from './http/errors.js';
import { secretPaths } from './http/log-paths.js';
import { registerAuth } from './http/auth.js';
import { registerDocs } from './http/docs.js';
import { listPhoneNumbersRoute } from './http/routes/phone-numbers/list.js';
import { sendMessageRoute } from './http/routes/messages/send.js';
import { getMessageRoute } from './http/routes/messages/get.js';
import { editMessageRoute } from './http/routes/messages/edit.js';
import { reactToMessageRoute } from './http/routes/messages/react.js';
import { createChatRoute } from './http/routes/chats/create.js';
import { sendChatMessageRoute } from './http/routes/chats/send-message.js';
import { listChatMessagesRoute } from './http/routes/chats/list-messages.js';
import { addChatParticipantRoute } from './http/routes/chats/add-participant.js';
import { removeChatParticipantRoute } from './http/routes/chats/remove-participant.js';
import { updateChatRoute } from './http/routes/chats/update.js';
import { leaveChatRoute } from './http/routes/chats/leave.js';
import { healthLiveRoute } from './http/routes/health/live.js';
import { healthReadyRoute } from './http/routes/health/ready.js';
import { adminCreateAccountRoute } from './http/routes/admin/accounts/create.js';
import { adminListAccountsRoute } from './http/routes/admin/accounts/list.js';
import { adminGetAccountRoute } from './http/routes/admin/accounts/get.js';
import { adminUpdateAccountRoute } from './http/routes/admin/accounts/update.js';
import { adminRotateAccountSecretRoute } from './http/routes/admin/accounts/rotate-secret.js';
import { adminCreateTenantRoute } from './http/routes/admin/tenants/create.js';
import { adminListTenantsRoute } from './http/routes/admin/tenants/list.js';
import { adminGetTenantRoute } from './http/routes/admin/tenants/get.js';
import { adminUpdateTenantRoute } from './http/routes/admin/tenants/update.js';
import { adminCreateLineRoute } from './http/routes/admin/lines/create.js';
import { adminListLinesRoute } from './http/routes/admin/lines/list.js';
import { adminUpdateLineRoute } from './http/routes/admin/lines/update.js';
import { adminLineHealthRoute } from './http/routes/admin/lines/health.js';
import { adminAdvanceClockRoute } from './http/routes/admin/clock/advance.js';
import { adminSimulatorSentRoute } from './http/routes/admin/simulator/sent.js';
import { adminSimulatorContentRoute } from './http/routes/admin/simulator/content.js';
import { adminSimulatorRestartRoute } from './http/routes/admin/simulator/restart.js';
import { adminSimulatorInboundRoute } from './http/routes/admin/simulator/inbound.js';
import { createAttachmentRoute } from './http/routes/attachments/create.js';
import { uploadAttachmentRoute } from './http/routes/attachments/upload.js';
import { getAttachmentRoute } from './http/routes/attachments/get.js';
import { getAttachmentContentRoute } from './http/routes/attachments/content.js';
import { stageVoiceNoteRoute } from './http/routes/voice-notes/stage.js';
import { listEventsRoute } from './http/routes/events/list.js';
import { getEventRoute } from './http/routes/events/get.js';
import { replayEventRoute } from './http/routes/events/replay.js';
import { streamEventsRoute } from './http/routes/events/stream.js';
import { listDevInboxRoute } from './http/routes/dev-inbox/list.js';
import { createWebhookSubscriptionRoute } from './http/routes/webhook-subscriptions/create.js';
import { listWebhookSubscriptionsRoute } from './http/routes/webhook-subscriptions/list.js';
import { getWebhookSubscriptionRoute } from './http/routes/webhook-subscriptions/get.js';
import { deleteWebhookSubscriptionRoute } from './http/routes/webhook-subscriptions/delete.js';
import { rotateWebhookSubscriptionSecretRoute } from './http/routes/webhook-subscriptions/rotate-secret.js';
import { bluebubblesWebhookRoute } from './http/routes/hooks/bluebubbles.js';
import { listChatsRoute } from './http/routes/chats/list.js';
import { getSettingsRoute } from './http/routes/settings/get.js';
import { updateSettingsRoute } from './http/routes/settings/update.js';
import { updateWebhookSubscriptionRoute } from './http/routes/webhook-subscriptions/update.js';
import { testWebhookSubscriptionRoute } from './http/routes/webhook-subscriptions/test.js';
import { getStatsRoute } from './http/routes/stats/get.js';
import { getVoiceNoteOggRoute } from './http/routes/voice-notes/ogg.js';
import { getSigningSecretRoute } from './http/routes/signing-secret/get.js';
import { rotateSigningSecretRoute } from './http/routes/signing-secret/rotate.js';
import { createConsoleSessionRoute, deleteConsoleSessionRoute, getConsoleSessionRoute } from './http/routes/console/sessions.js';
import { consoleSessions } from './domain/accounts-tenants/console-sessions.js';
import { registerConsole } from './http/console.js';
import { registerSlowBodyGuard } from './http/slow-body.js';
import { registerMethodNotAllowed } from './http/method-not-allowed.js';
import { hubspotRoutes } from './http/routes/crm/hubspot/register.js';
import { buildServices, type ServiceDeps, type Services } from './services.js';
import { publicBaseUrl } from './config.js';
import { createMetrics } from './metrics/registry.js';
import { registerHttpMetrics } from './http/metrics.js';
import { metricsRoute } from './http/routes/metrics/scrape.js';

export interface AppDeps extends ServiceDeps {
  adminToken: string;
  /** Whether start-up (the first-start demo sandbox, connecting lines) is over; /readyz waits for it. */
  isStarted?: () => boolean;
  /** The built console (console/dist); default: found next to the package. Absent: /console says how to build it. */
  consoleRoot?: string;
}

export { buildServices, type Services };

const EVENTS_CHANNEL = 'blueline_events';
const INTAKE_CHANNEL = 'blueline_intake';

/** JSON routes accept up to 1 MiB; routes that take more say so themselves. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * Fastify answers a longer path parameter itself, before any route schema; ids are capped at
 * 100 characters by the schemas, so this only needs to let them get there (and to the 404).
 */
export const MAX_PARAM_LENGTH = 1000;

/**
 * Success bodies are serialized by their schemas (fast); error bodies, whose schemas list the
 * codes exactly for OpenAPI, by JSON.stringify, so an error is never lost to its own schema.
 */
function successSerializers(externalSchemas: unknown, options: unknown) {
  const compile = SerializerSelector()(externalSchemas as never, options as never);
  return (def: { httpStatus?: string } & Parameters<typeof compile>[0]) =>
    Number(def.httpStatus) >= 400 ? (data: unknown) => JSON.stringify(data) : compile(def);
}

/** Trust the nearest `hops` proxies (fastify takes a hop count at run time, but its types do not). */
const hopsFromFront = (hops: number) => (_address: string, hop: number) => hop < hops;

export async function buildApp(deps: AppDeps): Promise<{ app: FastifyInstance; services: Services }> {
  const { config, store, clock } = deps;
  // Paths as logged: without the secret segments routes mark (the BlueBubbles webhook token).
  const paths = secretPaths();
  // One line per request, or (the default) per failed request: logged by the error handler,
  // so a successful request pays nothing for it.
  const logged = new WeakSet<FastifyRequest>();
  const logRequest = (req: FastifyRequest, reply: FastifyReply) => {
    // Once: a route that answers its own failures may also fail through the error handler.
    if (logged.has(req)) return;
    logged.add(req);
    req.log.info(
      {
        trace_id: req.id,
        method: req.method,
        path: paths.of(req),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        tenant: req.principal?.tenant.slug ?? req.refusedTenant,
      },
      'request',
    );
  };
  // fastify's own request serializer logs `url` whole; this one is fastify's with the redacted
  // path (for fastify's request lines, were they turned on, and any `{ req }` logged).
  const serializeRequest = (req: FastifyRequest) => ({ method: req.method, url: paths.of(req), host: req.host, remoteAddress: req.ip, remotePort: req.socket?.remotePort });
  // Metrics only with a token to read them: without one nothing is counted or wrapped.
  const metrics = config.metricsToken ? createMetrics({ hubspot: config.hubspot !== undefined }) : undefined;
  const app = Fastify({
    loggerInstance: deps.logger.child({}, { serializers: { req: serializeRequest } }) as unknown as FastifyBaseLogger,
    // Request lines come from our own onResponse hook: one cheap line, no headers.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'trace_id' }),
    // No child logger per request (pino children cost on every request): lines name trace_id themselves.
    childLoggerFactory: (logger) => logger,
    genReqId: () => ids.trace(),
    bodyLimit: DEFAULT_BODY_LIMIT,
    // X-Forwarded-For names the client only when it comes from a load balancer the operator named
    // (the console's failed sign-in limit counts per client address).
    trustProxy: typeof config.trustProxy === 'number' ? hopsFromFront(config.trustProxy) : config.trustProxy,
    // Requests that come on a kept-alive connection once shutdown has begun are refused by our
    // onRequest hook below, in the envelope with X-Trace-ID (fastify's own 503 has neither).
    return503OnClosing: false,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // Routing failures (bad percent-encoding, over-long parameters) in the envelope, with X-Trace-ID.
    // No hook runs for them, onResponse included: the handler writes their request line itself.
    frameworkErrors: frameworkErrorHandler({
      onFailure: (req, reply) => {
        metrics?.httpUnmatched(req.method, reply.statusCode, reply.elapsedTime);
        if (config.logRequests !== 'off') logRequest(req, reply);
      },
    }),
    // Logged as the request line of any other failed request (unless request lines are off).
    clientErrorHandler: clientErrorHandler(
      () => ids.trace(),
      config.logRequests === 'off' ? undefined : (refusal) => deps.logger.info({ ...refusal, ms: 0 }, 'request'),
    ),
    schemaController: { compilersFactory: { buildSerializer: successSerializers } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const services = buildServices({ ...deps, observer: metrics?.observer });
  if (metrics) registerHttpMetrics(app, metrics);

  // Set once close() has begun (the first preClose hook): from then on new requests are refused,
  // while the ones already under way finish.
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  // Callback-style hooks: no promise per request on the hot path.
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('X-Trace-ID', req.id);
    if (closing) {
      // The client retries on a new connection, which the load balancer gives another process.
      // 3001 is the table's retryable code for a failure on our side; 503 says it is temporary.
      if (req.raw.httpVersionMajor < 2) reply.header('Connection', 'close');
      done(new HttpFailure(3001, 'this process is shutting down; retry the request', 503));
      return;
    }
    done();
  });
  if (config.logRequests === 'all') {
    app.addHook('onResponse', (req, reply, done) => {
      logRequest(req, reply);
      done();
    });
  }

  registerSlowBodyGuard(app, { bodyTimeoutMs: config.bodyTimeoutMs, uploadMinBytesPerSec: config.uploadMinBytesPerSec });
  registerJsonBody(app);
  registerValidation(app);
  registerErrorHandling(app, { onFailure: config.logRequests === 'errors' ? logRequest : undefined, paths });
  if (config.logRequests === 'errors') {
    // Routes that answer some failures themselves (the BlueBubbles webhook, readiness, a replay's
    // downstream outcome, the HubSpot routes' own error handler) log those after the answer.
    app.addHook('onRoute', (r) => {
      if (!r.config?.answersFailures) return;
      const own: onResponseHookHandler = (req, reply, done) => {
        if (reply.statusCode >= 400) logRequest(req, reply);
        done();
      };
      r.onResponse = [...(r.onResponse === undefined ? [] : Array.isArray(r.onResponse) ? r.onResponse : [r.onResponse]), own];
    });
  }
  registerMethodNotAllowed(app);
  // Console sessions: a cookie + CSRF header is one more way to authenticate tenant and admin routes.
  const session = { sessions: consoleSessions({ store, clock, auth: services.auth, adminToken: deps.adminToken }), publicBaseUrl: config.publicBaseUrl };
  registerAuth(app, { auth: services.auth, adminToken: deps.adminToken, session });
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
  await registerDocs(app, { brand: config.headerBrand, baseUrl: publicBaseUrl(config) });

  healthLiveRoute(app);
  healthReadyRoute(app, { store, isStarted: deps.isStarted ?? (() => true) });
  if (metrics && config.metricsToken) {
    const sources = { store, clock, drivers: services.drivers, sseConnections: () => services.sse.size, sseBufferedBytes: () => services.sse.bufferedBytes() };
    metricsRoute(app, { token: config.metricsToken, contentType: metrics.contentType, scrape: (onError) => metrics.scrape(sources, onError) });
  }
  listPhoneNumbersRoute(app, services);
  adminCreateAccountRoute(app, services);
  adminListAccountsRoute(app, services);
  adminGetAccountRoute(app, services);
  adminUpdateAccountRoute(app, services);
  adminRotateAccountSecretRoute(app, services);
  adminCreateTenantRoute(app, services);
  adminListTenantsRoute(app, services);
  adminGetTenantRoute(app, services);
  adminUpdateTenantRoute(app, services);
  adminCreateLineRoute(app, services);
  adminListLinesRoute(app, services);
  adminUpdateLineRoute(app, services);
  adminLineHealthRoute(app, services);
  adminAdvanceClockRoute(app, { clock });
  adminSimulatorSentRoute(app, services);
  adminSimulatorContentRoute(app, services);
  adminSimulatorRestartRoute(app, services);
  adminSimulatorInboundRoute(app, services);
  sendMessageRoute(app, services);
  createChatRoute(app, services);
  sendChatMessageRoute(app, services);
  listChatMessagesRoute(app, services);
  addChatParticipantRoute(app, services);
  removeChatParticipantRoute(app, services);
  updateChatRoute(app, services);
  leaveChatRoute(app, services);
  getMessageRoute(app, services);
  editMessageRoute(app, services);
  reactToMessageRoute(app, services);
  // Upload URLs from configuration only, never the request's Host header (which the caller controls).
  createAttachmentRoute(app, { attachments: services.attachments, baseUrl: publicBaseUrl(config) });
  uploadAttachmentRoute(app, services);
  getAttachmentRoute(app, services);
  getAttachmentContentRoute(app, services);
  stageVoiceNoteRoute(app, services);
  listEventsRoute(app, services);
  getEventRoute(app, services);
  replayEventRoute(app, services);
  streamEventsRoute(app, { sse: services.sse, clock, accessCheck: services.accessCheck });
  listDevInboxRoute(app, services);
  createWebhookSubscriptionRoute(app, services);
  listWebhookSubscriptionsRoute(app, services);
  getWebhookSubscriptionRoute(app, services);
  deleteWebhookSubscriptionRoute(app, services);
  rotateWebhookSubscriptionSecretRoute(app, services);
  listChatsRoute(app, services);
  getSettingsRoute(app);
  updateSettingsRoute(app, services);
  updateWebhookSubscriptionRoute(app, services);
  testWebhookSubscriptionRoute(app, services);
  getStatsRoute(app, services);
  getVoiceNoteOggRoute(app, services);
  getSigningSecretRoute(app, services);
  rotateSigningSecretRoute(app, services);
  createConsoleSessionRoute(app, session);
  getConsoleSessionRoute(app, session);
  deleteConsoleSessionRoute(app, session);
  await registerConsole(app, { root: deps.consoleRoot });
  bluebubblesWebhookRoute(app, {
    secret: deps.hookSecret,
    resolveLine: async (id) => {
      const line = await store.lines.get(id);
      return line && line.driver === 'bluebubbles' ? line : undefined;
    },
    accept: (line, body) => services.inbound.accept(line, body),
  });

  await hubspotRoutes(app, services);

  // With PostgreSQL, wake-ups cross processes by LISTEN/NOTIFY; the database stays the truth.
  const notifier = store.database.notifier;
  let unlisten: (() => Promise<void>) | undefined;
  let unlistenIntake: (() => Promise<void>) | undefined;
  if (notifier) {
    unlisten = await notifier.listen(EVENTS_CHANNEL, (tenantId) => services.bus.fromRemote(tenantId));
    services.bus.connect({ publish: (tenantId) => void notifier.notify(EVENTS_CHANNEL, tenantId).catch(() => {}) });
    unlistenIntake = await notifier.listen(INTAKE_CHANNEL, () => services.inbound.wake.fromRemote());
    services.inbound.wake.connect({ publish: () => void notifier.notify(INTAKE_CHANNEL, '').catch(() => {}) });
  }
  if (config.deliveryWorker) {
    services.worker.start();
    services.hubspot?.autoSends.start();
    services.hubspot?.replyPush.start();
    services.hubspot?.heldActions.start();
    services.housekeeping.start();
  }
  if (config.inboundWorker) services.inbound.start();
  // Before the server waits for open connections to end: an SSE stream would otherwise hold
  // shutdown until the process is killed, the store never closed.
  app.addHook('preClose', async () => services.sse.closeAll());
  app.addHook('onClose', async () => {
    // Before the store closes: no sweep of interrupted sends starts, the one under way ends.
    await services.sendReconciler.stop();
    await services.unmatchedReports.stop();
    await services.worker.stop();
    await services.inbound.stop();
    await services.hubspot?.autoSends.stop();
    await services.hubspot?.replyPush.stop();
    await services.hubspot?.heldActions.stop();
    await services.housekeeping.stop();
    await unlisten?.();
    await unlistenIntake?.();
  });

  await app.ready();
  return { app, services };
}
