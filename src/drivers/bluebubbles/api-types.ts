/**
 * The shapes BlueBubbles Server answers with, as far as this driver reads them
 * (from its serializers: MessageSerializer, ChatSerializer, AttachmentSerializer,
 * HandleSerializer, and GeneralInterface.getServerMetadata). Every field is
 * optional here: webhook payloads are serialized "for notification" and trimmed.
 */

/** `{ status, message, data?, error? }` — every JSON answer of /api/v1. */
export interface BBEnvelope<T = unknown> {
  status?: number;
  message?: string;
  data?: T;
  error?: { type?: string; message?: string };
  metadata?: unknown;
}

/** GET /api/v1/server/info → data */
export interface BBServerInfo {
  computer_id?: string;
  os_version?: string;
  server_version?: string;
  private_api?: boolean;
  helper_connected?: boolean;
  proxy_service?: string;
  detected_icloud?: string;
  detected_imessage?: string;
  macos_time_sync?: number | null;
  local_ipv4s?: string[];
  local_ipv6s?: string[];
}

export interface BBHandle {
  address?: string;
  service?: string;
}

export interface BBAttachment {
  guid?: string;
  uti?: string;
  mimeType?: string | null;
  transferName?: string | null;
  totalBytes?: number;
  hideAttachment?: boolean;
  isSticker?: boolean;
  transferState?: number;
}

export interface BBChat {
  guid?: string;
  /** 43 = group, 45 = one-to-one */
  style?: number;
  chatIdentifier?: string;
  displayName?: string | null;
  participants?: BBHandle[];
  messages?: BBMessage[];
}

export interface BBMessage {
  guid?: string;
  tempGuid?: string;
  text?: string | null;
  subject?: string | null;
  handle?: BBHandle | null;
  chats?: BBChat[];
  attachments?: BBAttachment[];
  error?: number;
  dateCreated?: number | null;
  dateRead?: number | null;
  dateDelivered?: number | null;
  dateEdited?: number | null;
  /** Ventura+; Messages rarely sets it (an unsend sets dateEdited and empties the unsent part). */
  dateRetracted?: number | null;
  isFromMe?: boolean;
  isAudioMessage?: boolean;
  itemType?: number;
  associatedMessageGuid?: string | null;
  associatedMessageType?: string | number | null;
  balloonBundleId?: string | null;
  /**
   * The message's NSAttributedString(s) as node-typedstream decodes them, when asked for
   * (`with: attributedBody`); null otherwise. Each run's `range` is [location, length] in
   * `string`; an attachment's run has `__kIMFileTransferGUIDAttributeName`.
   */
  attributedBody?: { string?: unknown; runs?: unknown }[] | null;
}

/** What BlueBubbles POSTs to a webhook (WebhookService.sendPost): `{ type, data }`. */
export interface BBWebhookEvent {
  type?: string;
  data?: unknown;
}

/** The webhook events this driver subscribes to; names from BlueBubbles' webhookEventOptions. */
export const BB_WEBHOOK_EVENTS = ['new-message', 'updated-message', 'message-send-error'] as const;

/** U+FFFC: Messages puts one in the stored text where each attachment sits; BlueBubbles strips them from `text`. */
export const ATTACHMENT_PLACEHOLDER = '\uFFFC';
