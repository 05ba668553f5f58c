import type { TypedApp } from '../../typed.js';
import { route } from '../../route.js';
import { healthReady } from '../../../contract/health-ready.js';
import type { Store } from '../../../store/index.js';

/**
 * How long readiness waits for the store. A database that does not answer (a network partition,
 * a stopped server, every connection busy) is as unusable as one that refuses: the load balancer
 * must hear 503 in time, not wait on its own timeout.
 */
export const READY_PING_TIMEOUT_MS = 2_000;

/** The store's ping, or a rejection once `ms` have passed without its answer. */
function pingWithin(store: Store, ms: number): Promise<void> {
  const ping = store.database.ping();
  ping.catch(() => {}); // a ping that outlives the timeout may still fail: nobody waits for it then
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the store did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([ping, late]).finally(() => clearTimeout(timer));
}

/**
 * Readiness (start-up over and store reachable) for load balancers and scripts: once /readyz
 * answers 200, a first start's DATA_DIR/demo.json exists.
 */
export function healthReadyRoute(app: TypedApp, deps: { store: Store; isStarted: () => boolean }) {
  const store = deps.store.database.dialect;
  route(app, healthReady, async (_req, reply) => {
    if (!deps.isStarted()) return reply.status(503).send({ ok: false, store, error: 'starting' });
    try {
      await pingWithin(deps.store, READY_PING_TIMEOUT_MS);
      return { ok: true as const, store };
    } catch {
      return reply.status(503).send({ ok: false, store, error: 'store unreachable' });
    }
  }, { answersFailures: true });
}
