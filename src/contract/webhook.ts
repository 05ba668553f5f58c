/**
 * What one webhook is on the wire: the request the service sends to a subscriber (OpenAPI 3.1
 * `webhooks`), not an operation it serves. Its body and headers are TypeBox schemas like an
 * operation's, so OpenAPI, docs/api.md, the SDK's types and the tests' checks come from them.
 */
import type { Static, TSchema } from 'typebox';

export interface WebhookSpec {
  /** The event type: the key under OpenAPI `webhooks`, and X-Webhook-Event's value. */
  event: string;
  operationId: string;
  summary: string;
  description: string;
  tags: readonly string[];
  /** The JSON body (the envelope), POSTed to the subscription's url. */
  body: TSchema;
  /** The delivery headers; the legacy ones are named `x-<brand>-…` (BLUELINE_HEADER_BRAND). */
  headers: (brand: string) => TSchema;
  /** What the subscriber's answers mean, by OpenAPI status range (`2XX`, …). */
  responses: Readonly<Record<string, string>>;
}

/** Declares a webhook, keeping its exact literal types for inference. */
export const webhook = <const W extends WebhookSpec>(w: W): W => w;

/** The envelope's static type: `Envelope<typeof messageReceived>`. */
export type Envelope<W extends WebhookSpec> = Static<W['body']>;
