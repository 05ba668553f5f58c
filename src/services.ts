/**
 * The domain services, drivers and background parts assembled from the
 * configuration: what the HTTP app (and main) run on.
 */
import type { Logger } from 'pino';
import { publicBaseUrl, type Config } from './config.js';
import type { Clock } from './clock.js';
import type { Store, PhoneLine } from './store/index.js';
import type { BlobStore } from './blobs/index.js';
import { accountsService } from './domain/accounts-tenants/service.js';
import { authenticator } from './domain/accounts-tenants/auth.js';
import { linesService } from './domain/lines/service.js';
import { lineEvents } from './domain/messaging/line-events.js';
import { messaging } from './domain/messaging/index.js';
import { attachmentsService } from './domain/media/attachments.js';
import { voiceNotesService } from './domain/media/voice-notes.js';
import { eventBus } from './domain/events/bus.js';
import { subscriptionsService } from './domain/events/subscriptions.js';
import { eventsService } from './domain/events/service.js';
import { driverRegistry } from './drivers/registry.js';
import { bluebubblesDriver, registerWebhook, webhookUrlFor } from './drivers/bluebubbles/index.js';
import { deliveryWorker } from './delivery/worker.js';
import { sseHub } from './delivery/sse.js';
import { hubspotIntegration } from './crm/hubspot/index.js';

export interface ServiceDeps {
  config: Config;
  store: Store;
  clock: Clock;
  logger: Logger;
  blobs: BlobStore;
  /** Keys the per-line BlueBubbles webhook tokens (derived from the master key in main). */
  hookSecret: Buffer;
}

export function buildServices(deps: ServiceDeps) {
  const { store, clock, config, blobs } = deps;
  const attachments = attachmentsService({ store, clock, blobs });
  const auth = authenticator({ store, clock, brand: config.headerBrand });
  const bus = eventBus();
  // The envelope's crm_deep_link is a URL (spec) that works: the operator's CRM page for the chat, else
  // the chat's messages in this API; absolute even without PUBLIC_BASE_URL.
  const deepLinkTemplate = config.deepLinkTemplate ?? `${publicBaseUrl(config)}/api/v1/chats/{chat_id}/messages`;
  const events = lineEvents({ store, clock, blobs, bus, deepLinkTemplate });
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
  const messagingArea = messaging({
    store,
    clock,
    drivers,
    media: { attachments: (tenantId, ids, indexes) => attachments.resolve(tenantId, ids, indexes), voiceNote: (tenantId, lineId, id) => voiceNotes.resolve(tenantId, lineId, id), useVoiceNote: (id, send) => voiceNotes.useFor(id, send) },
  });
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
    worker: deliveryWorker({ store, clock, bus, logger: deps.logger }, { ...attempt, backoffMs: config.webhookBackoffMs, pollMs: config.workerPollMs, leaseMs: Math.max(config.webhookLeaseMs, config.webhookTimeoutMs * 2), batch: 32 }),
    sse: sseHub({ store, bus }, { maxMs: config.sseMaxMs, heartbeatMs: config.sseHeartbeatMs, pollMs: config.ssePollMs }),
    messaging: messagingArea,
    /** undefined unless HUBSPOT_CLIENT_ID/SECRET are set */
    hubspot: hubspotIntegration({ config, store, clock, messaging: messagingArea, logger: deps.logger }),
  };
}

export type Services = ReturnType<typeof buildServices>;
