/**
 * What a pushed reply looks like on the contact's timeline. HubSpot has no
 * iMessage channel (its communication channels: SMS, WHATS_APP, LINKEDIN_MESSAGE,
 * PHYSICAL_MAIL, CUSTOM_CHANNEL_CONVERSATION), and SMS is the closest (a phone-number text message), so
 * the body names iMessage. Media are not uploaded to HubSpot: an attachment or
 * voice note is a line saying what arrived (name, type, size or length), so the
 * rep knows to look in Blueline. The body is HTML (HubSpot renders it as rich
 * text), escaped.
 */
import type { MessagePart } from '../../store/index.js';

export const CHANNEL_TYPE = 'SMS';

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function sizeOf(bytes?: number): string | undefined {
  if (bytes === undefined) return undefined;
  return bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${Math.round(bytes / 1024)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function partLine(p: MessagePart): string {
  switch (p.type) {
    case 'text':
      return escape(p.value).replace(/\r?\n/g, '<br>');
    case 'media': {
      const about = [p.mime_type, sizeOf(p.size_bytes)].filter(Boolean).join(', ');
      return `[Attachment: ${escape(p.filename ?? 'file')}${about ? ` (${escape(about)})` : ''}]`;
    }
    case 'voice_note':
      return `[Voice note${p.duration_seconds !== undefined ? `, ${Math.round(p.duration_seconds)} s` : ''}]`;
    case 'rich_link':
      return escape(p.url);
  }
}

export function replyBody(handle: string, parts: MessagePart[]): string {
  return [`<p><strong>iMessage reply</strong> from ${escape(handle)}</p>`, ...parts.map((p) => `<p>${partLine(p)}</p>`)].join('');
}

/** HubSpot may normalize the HTML it stores: bodies are compared by their letters and digits only. */
export const sameBody = (a: string | null | undefined, b: string) => {
  const norm = (s: string) => s.replace(/<[^>]*>/g, '').replace(/&[a-z]+;|&#\d+;/gi, '').replace(/[^\p{L}\p{N}]/gu, '');
  return a !== null && a !== undefined && norm(a) === norm(b);
};

export function communicationProperties(handle: string, parts: MessagePart[], sentAt: number): Record<string, string> {
  return {
    hs_communication_channel_type: CHANNEL_TYPE,
    hs_communication_logged_from: 'CRM',
    hs_communication_body: replyBody(handle, parts),
    hs_timestamp: new Date(sentAt).toISOString(),
  };
}
