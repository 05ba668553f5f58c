/**
 * POST /hooks/bluebubbles/{lineId}/{token} — where a line's BlueBubbles Server posts. Answers
 * 401 for a wrong token, 404 for an unknown line, 503 when the body could not be stored
 * (catch-up will still find a new message), otherwise 200 once the body is stored durably:
 * BlueBubbles posts each event once and never retries. A worker processes it after.
 */
import type { TypedApp } from '../../typed.js';
import { route } from '../../route.js';
import { bluebubblesWebhook } from '../../../contract/bluebubbles-webhook.js';
import { verifyWebhookToken } from '../../../drivers/bluebubbles/index.js';

export interface WebhookLine {
  id: string;
  driver_config: Record<string, unknown>;
}

export interface BlueBubblesRouteDeps {
  /** The secret the per-line tokens derive from. */
  secret: Buffer;
  resolveLine(lineId: string): Promise<WebhookLine | undefined>;
  /** Stores the body durably for processing; resolves once it is committed. */
  accept(line: WebhookLine, body: unknown): Promise<void>;
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
      try {
        await deps.accept(line, req.body);
      } catch (err) {
        req.log.error({ line_id: line.id, reason: err instanceof Error ? err.message : String(err) }, 'BlueBubbles webhook could not be stored');
        return reply.status(503).send({ ok: false, error: 'the webhook could not be stored' });
      }
      return reply.status(200).send({ ok: true });
    },
    // The token is a credential: logs show the path with it redacted.
    { secretParams: ['token'], answersFailures: true },
  );
}
