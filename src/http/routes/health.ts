import type { FastifyInstance } from 'fastify';
import type { Store } from '../../store/index.js';

/** Liveness (process up) and readiness (store reachable) for load balancers. */
export function healthRoutes(app: FastifyInstance, deps: { store: Store }) {
  const hide = { hide: true };
  app.get('/healthz', { schema: hide, config: { auth: 'none' } }, async () => ({ ok: true }));
  app.get('/readyz', { schema: hide, config: { auth: 'none' } }, async (_req, reply) => {
    try {
      await deps.store.database.ping();
      return { ok: true, store: deps.store.database.dialect };
    } catch {
      return reply.status(503).send({ ok: false, store: deps.store.database.dialect, error: 'store unreachable' });
    }
  });
}
