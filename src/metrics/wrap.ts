/**
 * Observation at the edges of the domain: the drivers' sends, the lines' inbound messages and
 * service epochs, the event log's replay attempts. Each wrapper keeps the wrapped object's
 * shape, so the domain is unchanged.
 */
import { DriverFailure, type DriverEvents, type DriverState, type LineDriver } from '../drivers/types.js';
import type { DriverRegistry } from '../drivers/registry.js';
import type { ServiceObserver, SentKind } from './observer.js';
import { isSuccess, type AttemptDelivery } from '../domain/events/attempts.js';

function counted<A extends unknown[], R>(observer: ServiceObserver, kind: SentKind, send: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args) => {
    try {
      const r = await send(...args);
      observer.messageSent(kind, 'sent');
      return r;
    } catch (err) {
      // A send whose answer never came is counted when reconciliation settles it (services.ts).
      if (!(err instanceof DriverFailure && err.kind === 'ambiguous')) observer.messageSent(kind, 'failed');
      throw err;
    }
  };
}

/** The registry with every line driver's sends counted (one wrapper per driver instance). */
export function observeDrivers(registry: DriverRegistry, observer: ServiceObserver): DriverRegistry {
  const wrapped = new WeakMap<LineDriver, LineDriver>();
  return {
    ...registry,
    forLine(line) {
      const driver = registry.forLine(line);
      let w = wrapped.get(driver);
      if (!w) {
        // Prototype-chained, so every other method (and any a driver adds) behaves as before.
        w = Object.create(driver, {
          sendText: { value: counted(observer, 'text', driver.sendText.bind(driver)) },
          sendMedia: { value: counted(observer, 'media', driver.sendMedia.bind(driver)) },
          sendVoiceNote: { value: counted(observer, 'voice_note', driver.sendVoiceNote.bind(driver)) },
          createGroup: { value: counted(observer, 'group', driver.createGroup.bind(driver)) },
        }) as LineDriver;
        wrapped.set(driver, w);
      }
      return w;
    },
  };
}

/**
 * Line events with each inbound message counted once it is recorded. A late failure is counted by
 * the domain (onFailedAfterSend): one reported before its send's guid was stored is applied after
 * sendFailed answered.
 */
export function observeLineEvents<E extends DriverEvents>(events: E, observer: ServiceObserver): E {
  return {
    ...events,
    async inbound(lineId, message) {
      // A message reported twice (a redelivered webhook) is recorded once and counted once: for the
      // second report the domain answers false (domain/messaging/line-events.ts).
      const recorded = await events.inbound(lineId, message);
      if (recorded !== false) observer.messageReceived();
      return recorded;
    },
  };
}

/** The drivers' state port, counting a service epoch that replaces another (a first epoch is no change). */
export function observeDriverState(state: DriverState, observer: ServiceObserver): DriverState {
  return {
    serviceEpoch: (lineId) => state.serviceEpoch(lineId),
    appendDeviceLog: (id, lineId, entry, nowMs) => state.appendDeviceLog(id, lineId, entry, nowMs),
    findDeviceLog: (lineId, ref, sinceMs) => state.findDeviceLog(lineId, ref, sinceMs),
    directChatKey: (lineId, handle) => state.directChatKey(lineId, handle),
    setDirectChatKey: (lineId, handle, chatKey, nowMs) => state.setDirectChatKey(lineId, handle, chatKey, nowMs),
    async setServiceEpoch(lineId, epoch, nowMs) {
      const before = await state.serviceEpoch(lineId);
      await state.setServiceEpoch(lineId, epoch, nowMs);
      if (before !== undefined && before !== epoch) observer.serviceEpochChanged();
    },
    // Counted by the process whose write replaced the epoch: several processes that saw one restart count it once.
    async replaceServiceEpoch(lineId, expected, epoch, nowMs) {
      const r = await state.replaceServiceEpoch(lineId, expected, epoch, nowMs);
      if (r.wrote && expected !== undefined && expected !== epoch) observer.serviceEpochChanged();
      return r;
    },
  };
}

/**
 * The event log's replay attempts (POST /api/v1/events/{id}/replay), counted as the worker's
 * are: a receiver got the POST either way. A replay schedules nothing after itself, so a
 * failure is `failed`. Its delivery latency is not observed: a replay is asked for by hand,
 * often long after the event, and would say nothing about how fast deliveries go.
 */
export function observeReplayAttempts(attempt: AttemptDelivery, observer: ServiceObserver): AttemptDelivery {
  return async (event, sub, nowMs) => {
    const r = await attempt(event, sub, nowMs);
    observer.webhookAttempt(isSuccess(r) ? 'delivered' : 'failed', r.status, r.durationMs);
    return r;
  };
}
