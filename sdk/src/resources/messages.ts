import type { EditRequest, EditResult, Message, ReactRequest, ReactResult, SendRequest, SendResponse } from '../types.js';
import { Resource, newIdempotencyKey, seg, type CallOptions } from './base.js';

export class Messages extends Resource {
  /**
   * `POST /api/v1/send`: text, media (`attachments`), `effect`, `rich_link` or a staged
   * `voice_note`. Without an `idempotency_key` one is generated for this call and reused by its
   * retries, so a retried send never sends twice; yours wins when given.
   */
  send(params: SendRequest, opts: CallOptions = {}): Promise<SendResponse> {
    const json = params.idempotency_key ? params : { ...params, idempotency_key: newIdempotencyKey() };
    return this.core.request({ method: 'POST', path: '/api/v1/send', json, retry: 'idempotent', ...opts });
  }

  /** `GET /api/v1/messages/{id}`: status (sent → delivered → read, or failed) and timestamps. */
  async get(messageId: string, opts: CallOptions = {}): Promise<Message> {
    const res = await this.core.request<{ message: Message }>({ method: 'GET', path: `/api/v1/messages/${seg(messageId)}`, retry: 'idempotent', ...opts });
    return res.message;
  }

  /** `POST /api/v1/messages/{id}/edit` (15 minutes from send; not idempotent). */
  edit(messageId: string, params: EditRequest, opts: CallOptions = {}): Promise<EditResult> {
    return this.core.request({ method: 'POST', path: `/api/v1/messages/${seg(messageId)}/edit`, json: params, retry: 'unsafe', ...opts });
  }

  /** `POST /api/v1/messages/{id}/react`: a tapback on an inbound or outbound message. */
  react(messageId: string, params: ReactRequest, opts: CallOptions = {}): Promise<ReactResult> {
    return this.core.request({ method: 'POST', path: `/api/v1/messages/${seg(messageId)}/react`, json: params, retry: 'unsafe', ...opts });
  }
}
