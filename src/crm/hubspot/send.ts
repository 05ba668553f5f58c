/**
 * The one door from the HubSpot integration into the send pipeline (the same as
 * POST /api/v1/send: first-touch rules, caps, window, line selection, idempotency,
 * events). Everything the pipeline's answer means to the CRM routes is read here,
 * so a change of its return type is a change of this file only.
 */
import { ApiError } from '../../errors/registry.js';
import type { Messaging } from '../../domain/messaging/index.js';
import type { SendResult } from '../../domain/messaging/send.js';
import type { Tenant } from '../../store/index.js';

export interface CrmSend {
  phone: string;
  text: string;
  phone_line_id?: string;
  /** The pipeline's own idempotency key, derived from the CRM's key: a retry after a crash never sends twice. */
  idempotency_key: string;
}

export type CrmSent = Pick<SendResult, 'message_id' | 'lead_id' | 'chat_id' | 'lead_created' | 'phone_line_id'>;

/** The error name the spec gives a reached project daily first-touch cap. */
export const DAILY_CAP_REACHED = 'daily cap reached';

export async function sendForCrm(messaging: Messaging, tenant: Tenant, req: CrmSend): Promise<CrmSent> {
  const outcome = await messaging.send.send(tenant, { phone: req.phone, body: req.text, phone_line_id: req.phone_line_id, idempotency_key: req.idempotency_key });
  const b = outcome.body as SendResult;
  return { message_id: b.message_id, lead_id: b.lead_id, chat_id: b.chat_id, lead_created: b.lead_created, phone_line_id: b.phone_line_id };
}

/** Whether a pipeline failure is the project's daily first-touch cap (its 4002 says so first). */
export function isDailyCapReached(err: unknown): boolean {
  return err instanceof ApiError && err.code === 4002 && err.message.startsWith(DAILY_CAP_REACHED);
}
