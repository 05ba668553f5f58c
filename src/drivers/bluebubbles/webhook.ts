/**
 * How BlueBubbles' webhooks reach Blueline.
 *
 * BlueBubbles does not sign its webhooks, so each line gets its own URL with
 * an unguessable token: `/hooks/bluebubbles/<lineId>/<token>`, token =
 * HMAC-SHA256(secret, "bluebubbles-webhook:" + lineId) in hex. The route
 * recomputes it and compares in constant time; a wrong token is 401 before
 * anything is looked up. The route itself is http/routes/hooks/bluebubbles.ts.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { DriverContext } from '../types.js';
import { DriverFailure } from '../types.js';
import { BB_WEBHOOK_EVENTS } from './api-types.js';
import { BlueBubblesClient } from './client.js';
import { parseConfig } from './config.js';
import { toDriverFailure } from './errors.js';

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
