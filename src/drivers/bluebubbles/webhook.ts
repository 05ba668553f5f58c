/**
 * How BlueBubbles' webhooks reach Blueline.
 *
 * BlueBubbles does not sign its webhooks, so each line gets its own URL with
 * an unguessable token: `/hooks/bluebubbles/<lineId>/<token>`, token =
 * HMAC-SHA256(secret, "bluebubbles-webhook:" + lineId) in hex. The route
 * recomputes it and compares in constant time; a wrong token is 401 before
 * anything is looked up.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { DriverContext } from '../types.js';
import { DriverFailure } from '../types.js';
import { BB_WEBHOOK_EVENTS } from './api-types.js';
import { BlueBubblesClient } from './client.js';
import { parseConfig } from './config.js';
import { toDriverFailure } from './errors.js';

export const WEBHOOK_ROUTE = '/hooks/bluebubbles/:lineId/:token';

/** The per-line token (64 hex characters). */
export function webhookTokenFor(secret: Buffer | string, lineId: string): string {
  return createHmac('sha256', secret).update(`bluebubbles-webhook:${lineId}`).digest('hex');
}

/** Constant-time check of a token taken from a URL. */
export function verifyWebhookToken(secret: Buffer | string, lineId: string, token: unknown): boolean {
  if (typeof token !== 'string') return false;
  const expected = Buffer.from(webhookTokenFor(secret, lineId));
  const given = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The URL to register with the line's BlueBubbles Server: `<base>/hooks/bluebubbles/<lineId>/<token>`. */
export function webhookUrlFor(publicBaseUrl: string, secret: Buffer | string, lineId: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/hooks/bluebubbles/${encodeURIComponent(lineId)}/${webhookTokenFor(secret, lineId)}`;
}

interface BBWebhook {
  id?: number;
  url?: string;
  events?: (string | { value?: string })[];
}

const eventNames = (h: BBWebhook) => (h.events ?? []).map((e) => (typeof e === 'string' ? e : e?.value)).filter((e): e is string => typeof e === 'string');

export interface RegisteredWebhook {
  id?: number;
  url: string;
  events: string[];
  /** false when an identical registration was already there */
  created: boolean;
  /** ids of this line's registrations under another URL that were removed */
  removed: number[];
}

/**
 * Makes sure the line's BlueBubbles Server posts `new-message` and
 * `updated-message` to `publicUrl` (the full per-line URL, see webhookUrlFor).
 * Idempotent: an existing registration for the URL with those events is kept;
 * registrations of the same line under another URL (an old PUBLIC_BASE_URL or
 * secret) are removed unless `removeStale` is false.
 */
export async function registerWebhook(
  ctx: Pick<DriverContext, 'lineId' | 'config'> & { fetch?: typeof fetch },
  publicUrl: string,
  opts: { removeStale?: boolean } = {},
): Promise<RegisteredWebhook> {
  const parsed = parseConfig(ctx.config);
  if (!parsed.ok) throw new DriverFailure('line_down', `the line's BlueBubbles driver_config is invalid: ${parsed.problems.join('; ')}`);
  const client = new BlueBubblesClient(parsed.config, ctx.fetch);
  const wanted: string[] = [...BB_WEBHOOK_EVENTS];
  try {
    const listed = await client.request<BBWebhook[]>('GET', '/api/v1/webhook');
    const hooks = Array.isArray(listed.data) ? listed.data : [];
    const removed: number[] = [];
    const linePath = `/hooks/bluebubbles/${encodeURIComponent(ctx.lineId)}/`;
    let keep: BBWebhook | undefined;
    for (const h of hooks) {
      if (typeof h.url !== 'string' || typeof h.id !== 'number') continue;
      const same = h.url === publicUrl;
      if (same && !keep && wanted.every((e) => eventNames(h).includes(e))) {
        keep = h;
        continue;
      }
      // A duplicate or outdated registration for this URL, or this line under another URL.
      if (same || (opts.removeStale !== false && h.url.includes(linePath))) {
        await client.request('DELETE', `/api/v1/webhook/${h.id}`);
        removed.push(h.id);
      }
    }
    if (keep) return { id: keep.id, url: publicUrl, events: eventNames(keep), created: false, removed };
    const made = await client.request<BBWebhook>('POST', '/api/v1/webhook', { json: { url: publicUrl, events: wanted } });
    return { id: made.data?.id, url: publicUrl, events: made.data ? eventNames(made.data) : wanted, created: true, removed };
  } catch (err) {
    throw toDriverFailure(err, 'webhook');
  }
}

export interface WebhookLine {
  id: string;
  driver_config: Record<string, unknown>;
}

export interface BlueBubblesRouteDeps {
  /** The secret the per-line tokens derive from. */
  secret: Buffer;
  resolveLine(lineId: string): Promise<WebhookLine | undefined>;
  /**
   * Stores the body durably for processing; resolves once it is committed. Only then is
   * BlueBubbles answered 200: it posts each event once and never retries.
   */
  accept(line: WebhookLine, body: unknown): Promise<void>;
}

/**
 * POST /hooks/bluebubbles/:lineId/:token — where BlueBubbles posts. Answers 401 for a wrong
 * token, 404 for an unknown line, 503 when the body could not be stored (catch-up will still
 * find a new message), otherwise 200 once the body is stored; a worker processes it after
 * (fetching the message and its media can take a while).
 */
export function bluebubblesWebhookRoute(app: FastifyInstance, deps: BlueBubblesRouteDeps): void {
  // The token is a credential: logs show the path with it redacted (secretParams).
  app.post<{ Params: { lineId: string; token: string } }>(WEBHOOK_ROUTE, { config: { auth: 'none', secretParams: ['token'] }, schema: { hide: true } }, async (req, reply) => {
    const { lineId, token } = req.params;
    if (!verifyWebhookToken(deps.secret, lineId, token)) return reply.status(401).send({ ok: false, error: 'invalid webhook token' });
    if ((req as { jsonError?: unknown }).jsonError !== undefined) return reply.status(400).send({ ok: false, error: 'body is not valid JSON' });
    const line = await deps.resolveLine(lineId);
    if (!line) return reply.status(404).send({ ok: false, error: 'unknown line' });
    try {
      await deps.accept(line, req.body);
    } catch (err) {
      req.log.error({ line_id: line.id, reason: err instanceof Error ? err.message : String(err) }, 'BlueBubbles webhook could not be stored');
      return reply.status(503).send({ ok: false, error: 'the webhook could not be stored' });
    }
    return reply.status(200).send({ ok: true });
  });
}
