/**
 * Inbound that is never lost (issue 16): BlueBubbles webhook bodies are stored before the route
 * answers (`accept`) and processed by the intake worker; catch-up asks each line's Mac for what
 * no webhook brought. Both report through the same handler, which records each message once
 * (by guid), so whichever sees a message first wins and the other finds it recorded.
 */
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Store, PhoneLine } from '../store/index.js';
import type { DriverRegistry } from '../drivers/registry.js';
import { handleBlueBubblesWebhook } from '../drivers/bluebubbles/inbound.js';
import { timeSortableId } from '../domain/ids.js';
import { intakeWake } from './wake.js';
import { intakeWorker, type IntakeWorkerSettings } from './worker.js';
import { catchUp, type CatchUpSettings } from './catch-up.js';

export interface InboundSettings {
  worker: Omit<IntakeWorkerSettings, 'leaseMs'>;
  catchUp: Omit<CatchUpSettings, 'leaseMs'>;
  /** how long a worker holds an intake row or a line's catch-up (a crashed holder's come back after it) */
  leaseMs: number;
}

export function inboundIntake(deps: { store: Store; clock: Clock; drivers: DriverRegistry; logger?: Logger }, settings: InboundSettings) {
  const { store, drivers } = deps;
  const wake = intakeWake();
  const handle = async (lineId: string, body: unknown) => {
    const line = await store.lines.get(lineId);
    if (!line || line.driver !== 'bluebubbles') return { handled: 'ignored', reason: 'the line is gone' };
    return handleBlueBubblesWebhook(drivers.contextFor(line), line.id, body);
  };
  const worker = intakeWorker({ store, wake, handle, logger: deps.logger }, { ...settings.worker, leaseMs: settings.leaseMs });
  const catcher = catchUp(deps, { ...settings.catchUp, leaseMs: settings.leaseMs });
  return {
    wake,
    worker,
    catchUp: catcher,
    /** Stores a BlueBubbles webhook body durably; resolves once it is committed. */
    async accept(line: Pick<PhoneLine, 'id'>, body: unknown): Promise<void> {
      await store.intake.record({ id: `in_${timeSortableId(Date.now())}`, line_id: line.id, body: JSON.stringify(body ?? null), nowMs: Date.now() });
      wake.stored();
      catcher.webhookArrived(line.id);
    },
    start() {
      worker.start();
      catcher.start();
    },
    async stop() {
      await Promise.all([worker.stop(), catcher.stop()]);
    },
  };
}

export type InboundIntake = ReturnType<typeof inboundIntake>;
