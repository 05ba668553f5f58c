import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { attachmentView } from '../../present/attachments.js';
import { getAttachment } from '../../../contract/attachments-get.js';
import type { AttachmentsService } from '../../../domain/media/attachments.js';

export function getAttachmentRoute(app: TypedApp, deps: { attachments: AttachmentsService }) {
  route(app, getAttachment, async (req) => ({ attachment: attachmentView(await deps.attachments.metadata(principalOf(req).tenant.id, req.params.id)) }));
}
