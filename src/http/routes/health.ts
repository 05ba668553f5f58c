import type { FastifyInstance } from 'fastify';
import type { Store } from '../../store/index.js';

/**
 * Liveness (process up) and readiness (start-up over and store reachable) for
 * load balancers and scripts: once /readyz answers 200, a first start's
 * DATA_DIR/demo.json exists.
 */
export function healthRoutes(app: FastifyInstance, deps: { store: Store; isStarted: () => boolean }) {
  const hide = { hide: true };
  app.get('/healthz', { schema: hide, config: { auth: 'none' } }, async () => ({ ok: true }));
  app.get('/readyz', { schema: hide, config: { auth: 'none' } }, async (_req, reply) => {
    if (!deps.isStarted()) return reply.status(503).send({ ok: false, store: deps.store.database.dialect, error: 'starting' });
    try {
      await deps.store.database.ping();
      return { ok: true, store: deps.store.database.dialect };
    } catch {
      return reply.status(503).send({ ok: false, store: deps.store.database.dialect, error: 'store unreachable' });
    }
  });
}
