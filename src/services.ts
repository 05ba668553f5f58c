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
import { signingSecretStatus } from './domain/accounts-tenants/signing-secret.js';
import { authenticator } from './domain/accounts-tenants/auth.js';
import { linesService } from './domain/lines/service.js';
import { lineEvents } from './domain/messaging/line-events.js';
import { messaging, type MediaSource } from './domain/messaging/index.js';
import { sendReconciler } from './domain/messaging/reconcile.js';
import { statusEvents } from './domain/messaging/status-events.js';
import { unmatchedReports } from './domain/messaging/unmatched-reports.js';
import { attachmentsService } from './domain/media/attachments.js';
import { voiceNotesService } from './domain/media/voice-notes.js';
import { eventBus } from './domain/events/bus.js';
import { subscriptionsService } from './domain/events/subscriptions.js';
import { eventsService } from './domain/events/service.js';
import { driverRegistry } from './drivers/registry.js';
import { bluebubblesDriver, registerWebhook, webhookUrlFor } from './drivers/bluebubbles/index.js';
import type { DriverState } from './drivers/types.js';
import { simulatorControls } from './domain/lines/simulator.js';
import { lineHealth } from './domain/lines/health.js';
import { attemptDelivery } from './delivery/attempt.js';
import { deliveryWorker } from './delivery/worker.js';
import { sseHub } from './delivery/sse.js';
import { subscriptionChanges } from './domain/events/subscription-changes.js';
import { statsService } from './domain/stats/overview.js';
import { chatList } from './domain/messaging/chat-list.js';
import { voiceNoteAudio } from './domain/media/voice-note-audio.js';
import { inboundIntake } from './intake/index.js';
import type { AddressGuard } from './net/index.js';
import type { ServiceObserver } from './metrics/observer.js';
import { observeDrivers, observeDriverState, observeLineEvents, observeReplayAttempts } from './metrics/wrap.js';
import type { AttemptDelivery } from './domain/events/attempts.js';
import { hubspotIntegration } from './crm/hubspot/index.js';
import { housekeeping } from './domain/housekeeping.js';
import { accessCheck } from './domain/accounts-tenants/access-check.js';
import type { IdentifyLimits } from './domain/accounts-tenants/signature-owner.js';

export interface ServiceDeps {
  config: Config;
  store: Store;
  clock: Clock;
  logger: Logger;
  blobs: BlobStore;
  /** Keys the per-line BlueBubbles webhook tokens (derived from the master key in main). */
  hookSecret: Buffer;
  /** Which addresses outbound targets may have; tests script DNS with it. Default: the real policy and resolver. */
  addressGuard?: AddressGuard;
  /** Told of sends, inbound messages, restarts and webhook attempts (metrics); none → nothing is wrapped. */
  observer?: ServiceObserver;
  /** Bounds on finding an HMAC signer (signature-owner.ts); tests shrink the budget's refill. Default IDENTIFY_LIMITS. */
  identifyLimits?: IdentifyLimits;
}

/** Delays before a stored webhook's attempts 2 to 6 (its Mac may be restarting). */
const INTAKE_BACKOFF_MS = [1_000, 5_000, 30_000, 120_000, 600_000];

export function buildServices(deps: ServiceDeps) {
  const { store, clock, config, blobs } = deps;
  const attachments = attachmentsService({ store, clock, blobs });
  const auth = authenticator({ store, clock, brand: config.headerBrand, identifyLimits: deps.identifyLimits });
  const bus = eventBus();
  // The envelope's crm_deep_link is a URL (spec) that works: the operator's CRM page for the chat, else
  // the chat's messages in this API; absolute even without PUBLIC_BASE_URL.
  const deepLinkTemplate = config.deepLinkTemplate ?? `${publicBaseUrl(config)}/api/v1/chats/{chat_id}/messages`;
  const { observer } = deps;
  // A message its line fails after accepting it gives its voice note back through the voice-note
  // service, which needs the drivers these events feed: called only once everything is built.
  const lateFailureMedia = { canGiveBackVoiceNote: (tenantId: string, id: string) => voiceNotes.canGiveBack(tenantId, id) };
  // Receipts and late failures that come before their send's guid is stored, tried again for a while.
  const unmatched = unmatchedReports({ clock, log: deps.logger });
  // message.sent, .delivered, .read, .failed, .reacted and .edited, for the projects that subscribe to them.
  const announce = statusEvents({ store, clock, bus, deepLinkTemplate });
  // A late failure can be applied after sendFailed answered (tried again): the domain counts it, not a wrapper.
  const lineEventsOnly = lineEvents({
    store, clock, blobs, bus, deepLinkTemplate, media: lateFailureMedia, statusEvents: announce, unmatchedReports: unmatched, onFailedAfterSend: observer?.messageFailedAfterSend.bind(observer),
  });
  const events = observer ? observeLineEvents(lineEventsOnly, observer) : lineEventsOnly;
  const attempt = { timeoutMs: config.webhookTimeoutMs, allowPrivateNetworks: config.allowPrivateNetworks, brand: config.headerBrand };
  // One attempt asked for now (a replay, a subscription's test), outside the worker's schedule.
  const attemptNow: AttemptDelivery = (event, sub, nowMs) => attemptDelivery(event, sub, attempt, nowMs);
  // A driver keeps its line's service epoch (line runtime), BlueBubbles the names of its chats, the simulator its device log.
  const storedState = {
    serviceEpoch: (lineId: string) => store.lineRuntime.serviceEpoch(lineId),
    setServiceEpoch: (lineId: string, epoch: string, nowMs: number) => store.lineRuntime.setServiceEpoch(lineId, epoch, nowMs),
    appendDeviceLog: (id: string, lineId: string, entry: unknown, nowMs: number) => store.simulatorLog.append(id, lineId, entry, nowMs),
    findDeviceLog: (lineId: string, ref: string, sinceMs: number) => store.simulatorLog.findByRef(lineId, ref, sinceMs),
    directChatKey: (lineId: string, handle: string) => store.lineDirectChats.get(lineId, handle),
    setDirectChatKey: (lineId: string, handle: string, chatKey: string, nowMs: number) => store.lineDirectChats.set(lineId, handle, chatKey, nowMs),
    // A line's next epoch named atomically: several processes on one database agree on one.
    replaceServiceEpoch: (lineId: string, expected: string | undefined, epoch: string, nowMs: number) => store.lineRuntime.replaceServiceEpoch(lineId, expected, epoch, nowMs),
  };
  const state: DriverState = observer ? observeDriverState(storedState, observer) : storedState;
  const registry = driverRegistry({ events, state, now: () => clock.now() }, { bluebubbles: (ctx) => bluebubblesDriver(ctx) });
  const drivers = observer ? observeDrivers(registry, observer) : registry;
  const inbound = inboundIntake(
    { store, clock, drivers, logger: deps.logger },
    {
      leaseMs: config.inboundLeaseMs,
      worker: { pollMs: config.workerPollMs, batch: 32, backoffMs: INTAKE_BACKOFF_MS },
      catchUp: { intervalMs: config.catchUpIntervalMs, retryMs: config.catchUpRetryMs, pageSize: config.catchUpPageSize, pollMs: config.workerPollMs },
    },
  );
  /** A BlueBubbles line tells its Mac where to send webhooks (needs PUBLIC_BASE_URL) and is caught up. */
  const connectLine = (line: PhoneLine) => {
    inbound.catchUp.lineConnected(line);
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
  const media: MediaSource = {
    attachments: (tenantId, ids, indexes) => attachments.resolve(tenantId, ids, indexes),
    voiceNote: (tenantId, lineId, id) => voiceNotes.resolve(tenantId, lineId, id),
    useVoiceNote: (id, send, mayHaveGoneOut) => voiceNotes.useFor(id, send, mayHaveGoneOut),
    canGiveBackVoiceNote: (tenantId, id) => voiceNotes.canGiveBack(tenantId, id),
  };
  const reconciler = sendReconciler({
    store, clock, drivers, media, log: deps.logger, onSettled: observer?.messageSent.bind(observer), statusEvents: announce,
  });
  // A send or group creation whose line's answer never came wakes the reconciler for its window's end.
  const messagingArea = messaging({ store, clock, drivers, media, settling: reconciler, statusEvents: announce });
  return {
    accounts: accountsService({ store, clock, secretOverlapMs: config.secretOverlapMs, onChange: auth.invalidate }),
    lines: linesService({ store, clock, onLineSaved: connectLine }),
    connectLine,
    inbound,
    /** What drivers keep in the store (service epochs, the simulator's log), as the drivers see it. */
    driverState: state,
    auth,
    events,
    drivers,
    attachments,
    voiceNotes,
    bus,
    subscriptions: subscriptionsService({ store, clock, allowPrivateNetworks: config.allowPrivateNetworks, addressGuard: deps.addressGuard }),
    // The replay's attempts are delivery's (signing, POSTing), handed to the domain here.
    eventLog: eventsService({ store, clock, attempt: observer ? observeReplayAttempts(attemptNow, observer) : attemptNow }),
    // Restarts go through the drivers' (observed) state, so a simulated restart counts like a real one.
    simulator: simulatorControls({ store, clock, events, blobs, state }),
    // What the console needs beyond the original API (issue 20).
    subscriptionChanges: subscriptionChanges({ store, clock, allowPrivateNetworks: config.allowPrivateNetworks, attempt: attemptNow, deepLinkTemplate, addressGuard: deps.addressGuard }),
    stats: statsService({ store, clock }),
    signingSecretStatus: signingSecretStatus({ store, clock }),
    lineHealth: lineHealth({ store, clock, drivers }),
    chatList: chatList({ store }),
    voiceNoteAudio: voiceNoteAudio({ store, blobs, clock }),
    worker: deliveryWorker({ store, clock, bus, logger: deps.logger, observer }, { ...attempt, backoffMs: config.webhookBackoffMs, pollMs: config.workerPollMs, leaseMs: Math.max(config.webhookLeaseMs, config.webhookTimeoutMs * 2), batch: 32 }),
    sse: sseHub({ store, bus }, { maxMs: config.sseMaxMs, heartbeatMs: config.sseHeartbeatMs, pollMs: config.ssePollMs }),
    /** Whether a principal may still act, from the database: an open stream asks it as it goes. */
    accessCheck: accessCheck({ store, clock }),
    /** Deletes expired rows nothing reads any more, in batches, every few minutes (started with the delivery worker). */
    housekeeping: housekeeping({ store, clock, blobs, logger: deps.logger, onDeleted: observer?.rowsDeleted.bind(observer) }, { blobSweep: config.blobSweep }),
    /** Receipts and late failures waiting for their send's guid (stopped with the app). */
    unmatchedReports: unmatched,
    /** Settles sends a crash left `sending` (main starts it). */
    sendReconciler: reconciler,
    messaging: messagingArea,
    /** undefined unless HUBSPOT_CLIENT_ID/SECRET are set */
    hubspot: hubspotIntegration({ config, store, clock, messaging: messagingArea, logger: deps.logger, onCallEnded: observer?.hubspotCall.bind(observer) }),
  };
}

export type Services = ReturnType<typeof buildServices>;
