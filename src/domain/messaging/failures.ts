/**
 * Failures of the outbound path that carry what was known when they happened, so the
 * send route's flat shape can report the recipient's ids without anything being patched
 * onto an error on its way up. An idempotency record holds them as JSON (FailureRecord) and
 * a replay throws them again, ids included.
 */
import { DomainError, type ErrorCode, type ErrorDetails } from '../../errors/registry.js';

/** The driver refused or failed a message that had been recorded: the message and its line exist. */
export class DeliveryFailed extends DomainError {
  constructor(
    cause: DomainError,
    readonly messageId: string,
    readonly lineId: string,
  ) {
    super(cause.code, cause.message, { ...cause.details, messageId });
  }
}

/** The line's answer never came: the message stays `sending` (it may have gone out) until reconciliation asks the line. */
export class DeliveryUnsettled extends DeliveryFailed {}

/** The ids a send's flat failure reports (spec: POST /send rule 5). */
export interface RecipientIds {
  leadId: string | null;
  chatId: string | null;
  leadCreated: boolean;
  convoId: string | null;
  phoneLineId: string | null;
  /** Set when a message was recorded before the failure (then the outcome is final). */
  messageId?: string;
}

/** A /send that failed once its recipient was resolved (or not): the cause, with the ids. */
export class SendFailed extends DomainError {
  constructor(
    override readonly cause: DomainError,
    readonly ids: RecipientIds,
  ) {
    super(cause.code, cause.message, { ...cause.details });
  }
}

/** The message a failure happened to, if one had been recorded. */
export function failedMessageId(err: DomainError): string | undefined {
  if (err instanceof DeliveryFailed) return err.messageId;
  if (err instanceof SendFailed) return err.ids.messageId;
  return undefined;
}

/** A failure as JSON: its code, message and details, and the ids of its kind. */
export type FailureRecord = { code: ErrorCode; message: string; details: ErrorDetails } & (
  | { kind: 'send_failed'; ids: RecipientIds }
  | { kind: 'delivery_failed'; messageId: string; lineId: string }
);

export function failureRecord(err: SendFailed | DeliveryFailed): FailureRecord {
  const base = { code: err.code, message: err.message, details: { ...err.details } };
  return err instanceof SendFailed
    ? { ...base, kind: 'send_failed', ids: err.ids }
    : { ...base, kind: 'delivery_failed', messageId: err.messageId, lineId: err.lineId };
}

/** The failure a record holds, as the same typed error (it answers exactly as the first time). */
export function failureFromRecord(r: FailureRecord): SendFailed | DeliveryFailed {
  const cause = new DomainError(r.code, r.message, r.details);
  return r.kind === 'send_failed' ? new SendFailed(cause, r.ids) : new DeliveryFailed(cause, r.messageId, r.lineId);
}
