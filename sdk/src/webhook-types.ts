/**
 * The `message.received` envelope (spec: Events → Envelope). Webhooks are not operations, so
 * the contract's OpenAPI paths do not carry it: this mirrors the spec's table until the
 * contract declares the envelope (then derive it from there, like src/types.ts).
 */
export interface WebhookHandle {
  handle: string;
  service: 'imessage';
  is_me: boolean;
}

export type InboundPart =
  | { type: 'text'; value: string }
  | { type: 'media'; attachment_id: string; filename?: string | null; mime_type?: string | null; size_bytes?: number | null };

export interface MessageReceivedEvent {
  event: 'message.received';
  event_type: 'message.received';
  /** Dedup key: `<namespace>:msg:<message_guid>`. Delivery is at least once. */
  event_id: string;
  timestamp: string;
  api_version: 'v1';
  webhook_version: string;
  trace_id: string;
  /** The tenant slug. */
  partner_id: string;
  data: {
    chat: { id: string; is_group: boolean; handles: WebhookHandle[]; owner_handle: WebhookHandle };
    message: {
      /** Valid input to `messages.react`. */
      id: string;
      direction: 'inbound';
      sender_handle: WebhookHandle;
      parts: InboundPart[];
      sent_at: string | null;
      delivered_at: string | null;
      read_at: string | null;
      service: 'imessage';
    };
    crm_deep_link: string;
  };
  /** Legacy aliases: prefer `data.*`. */
  from?: string;
  to?: string;
  text?: string;
  message_guid?: string;
  line_id?: string;
}
