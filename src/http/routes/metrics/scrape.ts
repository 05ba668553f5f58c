/**
 * GET /metrics: Prometheus text format, for the operator's scraper only (Bearer METRICS_TOKEN).
 * Registered only when METRICS_TOKEN is set; without it the path is unknown (404).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../../errors/registry.js';
import { bearerToken } from '../../../domain/accounts-tenants/auth.js';

const sha256 = (s: string) => createHash('sha256').update(s).digest();

export function metricsRoute(app: FastifyInstance, deps: { token: string; contentType: string; scrape(onError: (err: Error) => void): Promise<string> }) {
  const digest = sha256(deps.token);
  app.get('/metrics', { schema: { hide: true }, config: { auth: 'none' } }, async (req, reply) => {
    const authorization = req.headers.authorization;
    if (!authorization) throw new DomainError(2012, 'send Authorization: Bearer <METRICS_TOKEN>');
    const token = bearerToken(authorization);
    if (!token || !timingSafeEqual(sha256(token), digest)) throw new DomainError(2004, 'invalid metrics token');
    const body = await deps.scrape((err) => req.log.warn({ reason: err.message }, 'metrics: a scrape-time read failed; those gauges keep their previous values'));
    return reply.header('content-type', deps.contentType).header('cache-control', 'no-store').send(body);
  });
}
