import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { idempotencyKeyOf } from '../../idempotency-key.js';
import { sendMessage, type SendRequest } from '../../../contract/messages-send.js';
import type { Messaging } from '../../../domain/messaging/index.js';
import type { AttachmentRef } from '../../../domain/messaging/send.js';
import { sentView } from '../../present/messages.js';

type AttachmentEntry = NonNullable<SendRequest['attachments']>[number];

/** Both accepted forms of an entry: "att_…" or { attachment_id: "att_…" }. */
const attachmentRef = (a: AttachmentEntry): AttachmentRef => (typeof a === 'string' ? { attachmentId: a } : { attachmentId: a.attachment_id, url: a.url });

export function sendMessageRoute(app: TypedApp, deps: { messaging: Messaging }) {
  route(
    app,
    sendMessage,
    async (req) => {
      const b = req.body;
      const sent = await deps.messaging.send.send(principalOf(req).tenant, {
        phone: b.phone,
        body: b.body,
        attachments: b.attachments?.map(attachmentRef),
        effect: b.effect,
        richLink: typeof b.rich_link === 'string' ? b.rich_link : b.rich_link?.url,
        voiceNoteId: b.voice_note?.voice_note_id,
        phoneLineId: b.phone_line_id,
        idempotencyKey: idempotencyKeyOf(req, b.idempotency_key),
        service: b.service,
      });
      return sentView(sent);
    },
    { bodyLimit: 256 * 1024 },
  );
}
