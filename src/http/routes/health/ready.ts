import type { TypedApp } from '../../typed.js';
import { route } from '../../route.js';
import { healthReady } from '../../../contract/health-ready.js';
import type { Store } from '../../../store/index.js';

/**
 * Readiness (start-up over and store reachable) for load balancers and scripts: once /readyz
 * answers 200, a first start's DATA_DIR/demo.json exists.
 */
export function healthReadyRoute(app: TypedApp, deps: { store: Store; isStarted: () => boolean }) {
  const store = deps.store.database.dialect;
  route(app, healthReady, async (_req, reply) => {
    if (!deps.isStarted()) return reply.status(503).send({ ok: false, store, error: 'starting' });
    try {
      await deps.store.database.ping();
      return { ok: true as const, store };
    } catch {
      return reply.status(503).send({ ok: false, store, error: 'store unreachable' });
    }
  });
}
