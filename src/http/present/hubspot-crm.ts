/** What HubSpot's calls get back (card, card send, workflow action, webhook), as the contract shows them. */
import type { HubSpotCardResponse } from '../../contract/hubspot-card.js';
import type { HubSpotCardSendResponse } from '../../contract/hubspot-card-send.js';
import type { HubSpotWorkflowSendResponse } from '../../contract/hubspot-workflow-send.js';
import type { HubSpotWebhookResponse } from '../../contract/hubspot-webhook.js';
import type { ContactCard, CrmSendResult, WorkflowResult } from '../../crm/hubspot/crm.js';
import { isoDuration } from '../../crm/hubspot/held-actions.js';
import type { SendCheck } from '../../crm/hubspot/first-touch.js';
import type { WebhookReceipt } from '../../crm/hubspot/auto-sends.js';
import { publicMessage } from './messages.js';

function sendCheckView(s: SendCheck): HubSpotCardResponse['send'] {
  const r = s.refusal;
  return {
    would_be_first_touch: s.wouldBeFirstTouch,
    allowed_now: s.allowedNow,
    ...(r && { error: r.error, code: r.code, reason: r.reason }),
    ...(r?.retryAfter !== undefined && { retry_after: r.retryAfter }),
  };
}

export function contactCardView(card: ContactCard, traceId: string): HubSpotCardResponse {
  const { contact } = card;
  const { phone } = contact;
  return {
    ok: true,
    portal_id: card.portalId,
    contact: {
      id: contact.id,
      firstname: contact.firstname,
      lastname: contact.lastname,
      phone: phone.raw,
      phone_normalized: phone.normalized,
      phone_usable: phone.normalized !== null,
      ...(phone.reason && { phone_problem: phone.reason }),
    },
    chat_id: card.chatId,
    messages: card.messages.map(publicMessage),
    lines: card.lines.map((l) => ({ phone_line_id: l.id, phone_number: l.phone_number })),
    send: sendCheckView(card.send),
    trace_id: traceId,
  };
}

type SentFields = Omit<HubSpotCardSendResponse, 'ok' | 'duplicate' | 'trace_id'>;

function sentFields({ result: o }: CrmSendResult): SentFields {
  return { message_id: o.messageId, lead_id: o.leadId, chat_id: o.chatId, lead_created: o.leadCreated, phone_line_id: o.phoneLineId, phone: o.phone };
}

export const cardSentView = (r: CrmSendResult, traceId: string): HubSpotCardSendResponse => ({
  ok: true,
  ...(r.duplicate && { duplicate: true }),
  ...sentFields(r),
  trace_id: traceId,
});

/** HubSpot reads outputFields; the rest is ours. */
export function workflowSentView(r: WorkflowResult, traceId: string): HubSpotWorkflowSendResponse {
  if (r.kind === 'held') {
    return {
      outputFields: { hs_execution_state: 'BLOCK', hs_expiration_duration: isoDuration(r.expiresInMs) },
      ok: true,
      held: true,
      ...(r.duplicate && { duplicate: true }),
      reason: r.hold.reason,
      next_attempt_at: new Date(r.hold.nextAttemptAt).toISOString(),
      hold_expires_at: new Date(r.hold.expiresAt).toISOString(),
      trace_id: traceId,
    };
  }
  return {
    outputFields: { hs_execution_state: 'SUCCESS', message_id: r.result.messageId },
    ok: true,
    ...(r.duplicate && { duplicate: true }),
    ...sentFields(r),
    trace_id: traceId,
  };
}

export const webhookReceiptView = (r: WebhookReceipt, traceId: string): HubSpotWebhookResponse => ({
  ok: true,
  received: r.received,
  recorded: r.recorded,
  duplicates: r.duplicates,
  ignored: r.ignored,
  trace_id: traceId,
});
