import { PageIterator } from '../pagination.js';
import type {
  ChatMessage,
  ChatMessagesPage,
  ChatMessagesQuery,
  ChatSendRequest,
  ChatSendResult,
  CreateChatRequest,
  CreateChatResponse,
  ParticipantAddResult,
} from '../types.js';
import { Resource, newIdempotencyKey, seg, type CallOptions } from './base.js';

export class Chats extends Resource {
  /**
   * `POST /api/v1/chats`: one handle opens the direct chat, several create a group. Carries an
   * idempotency key (generated once per call unless you give one), like `messages.send`.
   */
  create(params: CreateChatRequest, opts: CallOptions = {}): Promise<CreateChatResponse> {
    const json = params.idempotency_key ? params : { ...params, idempotency_key: newIdempotencyKey() };
    return this.core.request({ method: 'POST', path: '/api/v1/chats', json, retry: 'idempotent', ...opts });
  }

  /** `POST /api/v1/chats/{id}/messages`: parts into a chat (`parallel_attachments` groups images). */
  async send(chatId: string, params: ChatSendRequest, opts: CallOptions = {}): Promise<ChatSendResult> {
    const res = await this.core.request<{ message: ChatSendResult }>({ method: 'POST', path: `/api/v1/chats/${seg(chatId)}/messages`, json: params, retry: 'unsafe', ...opts });
    return res.message;
  }

  /** `GET /api/v1/chats/{id}/messages`, newest first: iterate it, or `.page()`. */
  messages(chatId: string, query: Omit<ChatMessagesQuery, 'cursor'> & { cursor?: string } = {}, opts: CallOptions = {}): PageIterator<ChatMessage, ChatMessagesPage> {
    const { cursor, ...rest } = query as { cursor?: string } & Record<string, string | number | undefined>;
    return new PageIterator<ChatMessage, ChatMessagesPage>(
      (c) => this.core.request({ method: 'GET', path: `/api/v1/chats/${seg(chatId)}/messages`, query: { ...rest, cursor: c }, retry: 'idempotent', ...opts }),
      (page) => page.messages,
      cursor,
    );
  }

  /** `POST /api/v1/chats/{id}/participants` (groups; adding twice is a no-op). */
  addParticipant(chatId: string, address: string, opts: CallOptions = {}): Promise<ParticipantAddResult> {
    // The API makes a repeated add a no-op, so a retry after a lost answer is harmless.
    return this.core.request({ method: 'POST', path: `/api/v1/chats/${seg(chatId)}/participants`, json: { address }, retry: 'idempotent', ...opts });
  }
}
