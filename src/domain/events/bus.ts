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

export function eventBus(): EventBus {
  const ee = new EventEmitter();
  ee.setMaxListeners(0);
  return {
    eventRecorded: (tenantId) => void ee.emit('event', tenantId),
    onEventRecorded(fn) {
      ee.on('event', fn);
      return () => ee.off('event', fn);
    },
  };
}
