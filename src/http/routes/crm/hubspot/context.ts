/**
 * What every HubSpot-facing route shares, declared once for the folder (an
 * encapsulated fastify context): raw JSON bodies kept for the signature, the
 * signature checked before anything else looks at the request (a bad one is
 * HTTP 401), and every other failure as HTTP 200 with `{ok:false, …}` (spec:
 * Errors, Limits) — the workflow route's also in HubSpot's outputFields. The
 * operations' contract (auth 'hubspot', `signatures`, errorShape 'crm' or
 * 'crm-workflow') says which; contract/errors.ts documents the same.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { DomainError } from '../../../../errors/registry.js';
import { toApiError } from '../../../errors.js';
import { verifyHubSpotSignature } from '../../../../crm/hubspot/signature.js';
import type { HubSpotIntegration } from '../../../../crm/hubspot/index.js';
import { limitReachedBy } from '../../../../crm/hubspot/send.js';
import { ReplayedFailure } from '../../../../crm/hubspot/once.js';
import type { TypedApp } from '../../../typed.js';
import { fastifyPath } from '../../../route.js';
import type { OperationSpec } from '../../../../contract/operation.js';
import type { CrmFailureBody, CrmWorkflowFailureBody } from '../../../../contract/hubspot-common.js';
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

function errorName(err: DomainError): string {
  const limit = limitReachedBy(err);
  if (limit) return limit;
  const names: Record<string, string> = {
    1001: 'missing field', 1002: 'invalid request', 1003: 'invalid phone', 1004: 'invalid json', 1005: 'url in first message', 1007: 'rate limited',
    1009: 'text too long', 1012: 'in progress', 1013: 'no usable phone', 2001: 'not connected', 2004: 'invalid signature', 2005: 'forbidden',
    2006: 'line not assigned', 2010: 'reconnect hubspot', 2011: 'not found', 3001: 'internal error', 3002: 'no line available', 3004: 'hubspot unavailable',
    4001: 'send failed', 4002: 'limit reached', 4099: 'unsupported',
  };
  return names[String(err.code)] ?? 'failed';
}

export function crmFailure(err: DomainError, traceId: string): CrmFailureBody {
  const internal = err.code === 3001;
  return {
    ok: false as const,
    error: errorName(err),
    code: err.code,
    message: internal ? 'internal error; quote the trace_id to support' : err.message,
    retryable: err.retryable,
    ...(err.details.retryAfter !== undefined && { retry_after: Math.ceil(err.details.retryAfter) }),
    ...(err instanceof ReplayedFailure && { duplicate: true }),
    trace_id: traceId,
  };
}

export function workflowFailure(err: DomainError, traceId: string): CrmWorkflowFailureBody {
  const body = crmFailure(err, traceId);
  return { outputFields: { hs_execution_state: 'FAIL_CONTINUE' as const, error: body.error }, ...body };
}

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
      const status = signatureFailures.has(apiErr) ? 401 : 200;
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
