/**
 * What the service reports as it works, without knowing how it is counted: services.ts hands
 * an observer to the parts that see these moments (the delivery worker, the wrappers of
 * `wrap.ts`), and `registry.ts` implements it with Prometheus metrics. No prom-client here,
 * so nothing but the metrics area depends on it.
 */
import type { CallKind, CallOutcome } from '../crm/hubspot/client.js';

export const SENT_KINDS = ['text', 'media', 'voice_note', 'group'] as const;
export type SentKind = (typeof SENT_KINDS)[number];

export interface ServiceObserver {
  /** A message handed to a line's driver: it accepted it (`sent`) or failed. */
  messageSent(kind: SentKind, result: 'sent' | 'failed'): void;
  /** A message its line had accepted (`sent`) and then reported failed (Messages could not deliver it). */
  messageFailedAfterSend(): void;
  /** An inbound message a line's driver reported. */
  messageReceived(): void;
  /** A line's messaging service restarted (its service epoch changed). */
  serviceEpochChanged(): void;
  /** One webhook attempt; `status` null for a network failure or timeout. */
  webhookAttempt(outcome: 'delivered' | 'retry' | 'failed', status: number | null, durationMs: number): void;
  /** A webhook delivered, `latencyMs` after its event was recorded. */
  webhookDelivered(latencyMs: number): void;
  /** Expired rows (for `attachment_file`, `partial_upload` and `orphan_blob`, files) the housekeeping pass deleted, by kind (domain/housekeeping.ts). */
  rowsDeleted(kind: string, count: number): void;
  /** One call into HubSpot ended, counted as `kind` (the spec's CRM call table), answered `ok` or failed as classified. */
  hubspotCall(kind: CallKind, outcome: CallOutcome): void;
}

export const noObserver: ServiceObserver = {
  messageSent() {},
  messageFailedAfterSend() {},
  messageReceived() {},
  serviceEpochChanged() {},
  webhookAttempt() {},
  webhookDelivered() {},
  rowsDeleted() {},
  hubspotCall() {},
};
