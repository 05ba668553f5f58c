/**
 * POST /hooks/bluebubbles/{lineId}/{token} — where a line's BlueBubbles Server posts. Answers
 * 401 for a wrong token, 404 for an unknown line, otherwise 200 at once and processes the
 * event in the background (BlueBubbles does not wait for or retry webhooks; fetching the
 * message and its media can take a while).
 */
import type { TypedApp } from '../../typed.js';
import { route } from '../../route.js';
import { bluebubblesWebhook } from '../../../contract/bluebubbles-webhook.js';
import { handleBlueBubblesWebhook, verifyWebhookToken, type WebhookOutcome } from '../../../drivers/bluebubbles/index.js';
import { DriverFailure, type DriverContext } from '../../../drivers/types.js';

export interface WebhookLine {
  id: string;
  driver_config: Record<string, unknown>;
}

export interface BlueBubblesRouteDeps {
  /** The secret the per-line tokens derive from. */
  secret: Buffer;
  resolveLine(lineId: string): Promise<WebhookLine | undefined>;
  /** The line's driver context (its config and the events to report to). */
  contextFor(line: WebhookLine): DriverContext;
  /** Called after an event was processed (in the background). */
  onProcessed?(outcome: WebhookOutcome, lineId: string): void;
  /** Called when processing failed; by default the failure is logged (without secrets). */
  onError?(err: unknown, lineId: string): void;
}

export function bluebubblesWebhookRoute(app: TypedApp, deps: BlueBubblesRouteDeps): void {
  route(
    app,
    bluebubblesWebhook,
    async (req, reply) => {
      const { lineId, token } = req.params;
      if (!verifyWebhookToken(deps.secret, lineId, token)) return reply.status(401).send({ ok: false, error: 'invalid webhook token' });
      if (req.jsonError !== undefined) return reply.status(400).send({ ok: false, error: 'body is not valid JSON' });
      const line = await deps.resolveLine(lineId);
      if (!line) return reply.status(404).send({ ok: false, error: 'unknown line' });
      const ctx = deps.contextFor(line);
      const body: unknown = req.body;
      setImmediate(() => {
        handleBlueBubblesWebhook(ctx, line.id, body).then(
          (outcome) => deps.onProcessed?.(outcome, line.id),
          (err: unknown) => {
            if (deps.onError) return deps.onError(err, line.id);
            const reason = err instanceof DriverFailure ? `${err.kind}: ${err.message}` : err instanceof Error ? err.message : String(err);
            req.log.warn({ line_id: line.id, reason }, 'BlueBubbles webhook could not be processed');
          },
        ).catch(() => {
          /* a throwing onProcessed/onError hook must not become an unhandled rejection */
        });
      });
      return reply.status(200).send({ ok: true });
    },
    // The token is a credential: logs show the path with it redacted.
    { secretParams: ['token'] },
  );
}
