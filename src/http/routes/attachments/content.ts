import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { streamFile } from '../../file-response.js';
import { getAttachmentContent } from '../../../contract/attachments-content.js';
import type { AttachmentsService } from '../../../domain/media/attachments.js';

export function getAttachmentContentRoute(app: TypedApp, deps: { attachments: AttachmentsService }) {
  route(app, getAttachmentContent, async (req, reply) => {
    const c = await deps.attachments.content(principalOf(req).tenant.id, req.params.id);
    return streamFile(reply, { size: c.size, contentType: c.attachment.content_type, filename: c.attachment.filename, open: c.open }, req.headers.range);
  }, { minAnswerRate: true });
}
