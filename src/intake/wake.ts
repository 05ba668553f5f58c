/**
 * Wake-ups for the intake worker: a webhook body was just stored. In process at once; across
 * processes on PostgreSQL through LISTEN/NOTIFY (app.ts connects it). The table stays the
 * truth: a lost wake-up only waits for the next poll.
 */
import { EventEmitter } from 'node:events';

export interface IntakeWake {
  /** Something was stored for the worker. */
  stored(): void;
  onStored(fn: () => void): () => void;
  /** A wake-up from another process: local listeners only, never echoed back. */
  fromRemote(): void;
  connect(remote: { publish(): void }): void;
}

export function intakeWake(): IntakeWake {
  const ee = new EventEmitter();
  ee.setMaxListeners(0);
  let remote: { publish(): void } | undefined;
  return {
    stored() {
      ee.emit('stored');
      remote?.publish();
    },
    onStored(fn) {
      ee.on('stored', fn);
      return () => ee.off('stored', fn);
    },
    fromRemote: () => void ee.emit('stored'),
    connect: (r) => void (remote = r),
  };
}
