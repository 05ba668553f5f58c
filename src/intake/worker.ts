/**
 * The intake worker: processes the webhook bodies the route stored before answering. Like the
 * delivery worker it claims rows with an owner and a lease (several processes share the work;
 * a crashed one's rows come back when its lease runs out) and ends only claims it still holds.
 * Rows of one line are processed in the order they arrived; lines go in parallel. A failure the
 * line may recover from (its Mac unreachable) is retried with backoff; after the last attempt,
 * or at once for a failure that will not change, the row is kept as `failed` (catch-up still
 * finds a lost new message on the Mac).
 */
import type { Logger } from 'pino';
import type { Store, IntakeItem } from '../store/index.js';
import { DriverFailure } from '../drivers/types.js';
import { claimLoop, workerName } from '../jobs/claim-loop.js';
import type { IntakeWake } from './wake.js';

export interface IntakeWorkerSettings {
  pollMs: number;
  leaseMs: number;
  batch: number;
  /** delays before attempts 2, 3, …; its length + 1 is the number of attempts */
  backoffMs: number[];
}

/** Handles one stored body; throws when it could not (retried if the failure may pass). */
export type IntakeHandler = (lineId: string, body: unknown) => Promise<unknown>;

const mayPass = (err: unknown) => !(err instanceof DriverFailure) || err.kind === 'line_down' || err.kind === 'unreachable';
const reasonOf = (err: unknown) => (err instanceof DriverFailure ? `${err.kind}: ${err.message}` : err instanceof Error ? err.message : String(err));

export function intakeWorker(deps: { store: Store; wake: IntakeWake; handle: IntakeHandler; logger?: Logger }, settings: IntakeWorkerSettings) {
  const { store } = deps;
  const owner = workerName('intake');
  let unsubscribe: (() => void) | undefined;

  async function processOne(item: IntakeItem): Promise<void> {
    let body: unknown;
    try {
      body = JSON.parse(item.body);
    } catch {
      await store.intake.retry(item.id, owner, item.attempts + 1, null, 'stored body is not JSON');
      return;
    }
    try {
      await deps.handle(item.line_id, body);
      await store.intake.finish(item.id, owner);
    } catch (err) {
      const attempts = item.attempts + 1;
      const delay = settings.backoffMs[attempts - 1];
      const next = mayPass(err) && delay !== undefined ? Date.now() + delay : null;
      await store.intake.retry(item.id, owner, attempts, next, reasonOf(err));
      deps.logger?.warn({ line_id: item.line_id, intake: item.id, attempts, reason: reasonOf(err), retry: next !== null }, 'inbound webhook could not be processed');
    }
  }

  async function tick(): Promise<number> {
    const items = await store.intake.claim(owner, Date.now(), settings.leaseMs, settings.batch);
    const byLine = new Map<string, IntakeItem[]>();
    for (const it of items) byLine.set(it.line_id, [...(byLine.get(it.line_id) ?? []), it]);
    await Promise.all(
      [...byLine.values()].map(async (list) => {
        for (const it of list) {
          await processOne(it).catch((err) => deps.logger?.error({ err, intake: it.id }, 'intake row failed unexpectedly; its lease will expire and it will be retried'));
        }
      }),
    );
    return items.length;
  }

  const loop = claimLoop({ tick, nextDueAt: () => store.intake.nextDueAt(), batch: settings.batch, pollMs: settings.pollMs, label: 'intake worker', logger: deps.logger });

  return {
    name: owner,
    start() {
      if (loop.running) return;
      // Listening only while running: a stopped worker leaves no listener on the wake-ups.
      unsubscribe = deps.wake.onStored(loop.wake);
      loop.start();
    },
    async stop() {
      unsubscribe?.();
      await loop.stop();
    },
    /** One pass, for tests that drive the worker by hand. */
    tick,
  };
}

export type IntakeWorker = ReturnType<typeof intakeWorker>;
