/**
 * What every HubSpot-facing route shares, declared once for the folder (an
 * encapsulated fastify context): raw JSON bodies kept for the signature, the
 * signature checked before anything else looks at the request (a bad one is
 * HTTP 401), and every other failure as HTTP 200 with `{ok:false, …}` (spec:
 * Errors, Limits) — the workflow route's also in HubSpot's outputFields — but
 * the codes a route's contract gives a status of their own (429/503: HubSpot
 * retries those, and the failure is ours, not the request's outcome). The
 * operations' contract (auth 'hubspot', `signatures`, errorShape 'crm' or
 * 'crm-workflow') says which; contract/errors.ts documents the same.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { DomainError } from '../../../../errors/registry.js';
import { toApiError } from '../../../errors.js';
import { verifyHubSpotSignature } from '../../../../crm/hubspot/signature.js';
import type { HubSpotIntegration } from '../../../../crm/hubspot/index.js';
import type { TypedApp } from '../../../typed.js';
import { fastifyPath } from '../../../route.js';
import type { OperationSpec } from '../../../../contract/operation.js';
import { crmFailure, workflowFailure } from '../../../present/hubspot-failures.js';
import { hubspotContactCard } from '../../../../contract/hubspot-card.js';
import { hubspotCardSend } from '../../../../contract/hubspot-card-send.js';
import { hubspotWorkflowSend } from '../../../../contract/hubspot-workflow-send.js';
import { hubspotWebhook } from '../../../../contract/hubspot-webhook.js';

const jsonErrors = new WeakMap<FastifyRequest, Error>();
const signatureFailures = new WeakSet<DomainError>();
export const signedAt = new WeakMap<FastifyRequest, number>();

/** The signature versions each route accepts, from its contract (v3 everywhere; workflow also v2, webhook also v1). */
const CRM_OPERATIONS: readonly OperationSpec[] = [hubspotContactCard, hubspotCardSend, hubspotWorkflowSend, hubspotWebhook];
const ACCEPTS = new Map(CRM_OPERATIONS.map((op) => [fastifyPath(op.path), op.signatures ?? (['v3'] as const)]));
/**
 * The codes a route answers with a status of their own, from its contract: on the routes HubSpot
 * retries (on 429 and 5xx, never on a 200), a failure of ours rather than the request's outcome.
 * The 404 (integration not configured) is answered outside these routes.
 */
const OWN_STATUS = new Map(
  CRM_OPERATIONS.map((op) => [fastifyPath(op.path), new Map(op.errors.flatMap((r) => (typeof r === 'object' && r.status !== 404 ? [[r.code, r.status] as const] : [])))]),
);

export async function crmContext(app: TypedApp, hs: HubSpotIntegration, routes: (crm: TypedApp) => void) {
  await app.register(async (ctx: FastifyInstance) => {
    const crm = ctx.withTypeProvider<TypeBoxTypeProvider>() as unknown as TypedApp;
    // Our own JSON parser here: a body that does not parse is answered only after the signature passed.
    crm.removeContentTypeParser('application/json');
    crm.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
      const raw = body as Buffer;
      req.rawBody = raw;
      if (raw.length === 0) return done(null, undefined);
      try {
        done(null, JSON.parse(raw.toString('utf8')));
      } catch (err) {
        jsonErrors.set(req, err as Error);
        done(null, undefined);
      }
    });
    crm.addHook('preValidation', (req, _reply, done) => {
      const check = verifyHubSpotSignature(
        { method: req.method, pathAndQuery: req.url, rawBody: req.rawBody?.toString('utf8') ?? '', headers: req.headers },
        { secret: hs.config.clientSecret, publicBaseUrl: hs.publicBaseUrl, accept: [...(ACCEPTS.get(req.routeOptions.url ?? '') ?? ['v3'])] },
      );
      if (!check.ok) {
        const err = new DomainError(2004, `HubSpot request signature refused: ${check.reason}`);
        signatureFailures.add(err);
        return done(err);
      }
      if (check.timestampMs !== undefined) signedAt.set(req, check.timestampMs);
      if (jsonErrors.has(req)) return done(new DomainError(1004, 'request body is not valid JSON'));
      done();
    });
    crm.setErrorHandler((err, req, reply) => {
      const apiErr = toApiError(err);
      if (apiErr.code === 3001) req.log.error({ err, trace_id: req.id }, 'unhandled error');
      const status = signatureFailures.has(apiErr) ? 401 : (OWN_STATUS.get(req.routeOptions.url ?? '')?.get(apiErr.code) ?? 200);
      if (status !== 200 && apiErr.details.retryAfter !== undefined) reply.header('Retry-After', String(Math.ceil(apiErr.details.retryAfter)));
      // Serialized as it is (the 200 schema is the success or the failure: no need to try both).
      const workflow = req.routeOptions.config?.errorShape === 'crm-workflow' && status === 200;
      // A serializer of our own leaves the content type unset: JSON, said explicitly.
      return reply
        .status(status)
        .type('application/json; charset=utf-8')
        .serializer((p: unknown) => JSON.stringify(p))
        .send(workflow ? workflowFailure(apiErr, req.id) : crmFailure(apiErr, req.id));
    });
    routes(crm);
  });
}
