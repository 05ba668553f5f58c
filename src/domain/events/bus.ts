/**
 * In-process wake-ups: a new event wakes the delivery worker and the SSE
 * streams at once. The database stays the truth; a lost wake-up only waits
 * for the next poll. (Across processes on PostgreSQL, LISTEN/NOTIFY feeds
 * the same bus.)
 */
import { EventEmitter } from 'node:events';

export interface EventBus {
  /** A tenant has a new or changed event. */
  eventRecorded(tenantId: string): void;
  onEventRecorded(fn: (tenantId: string) => void): () => void;
}

/** Another process's side of the bus (PostgreSQL NOTIFY). */
export interface RemoteBus {
  publish(tenantId: string): void;
}

export function eventBus(): EventBus & { connect(remote: RemoteBus): void; fromRemote(tenantId: string): void } {
  const ee = new EventEmitter();
  ee.setMaxListeners(0);
  let remote: RemoteBus | undefined;
  return {
    eventRecorded: (tenantId) => {
      ee.emit('event', tenantId);
      remote?.publish(tenantId);
    },
    /** A wake-up from another process: local listeners only, never echoed back. */
    fromRemote: (tenantId) => void ee.emit('event', tenantId),
    connect: (r) => void (remote = r),
    onEventRecorded(fn) {
      ee.on('event', fn);
      return () => ee.off('event', fn);
    },
  };
}
