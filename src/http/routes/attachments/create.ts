import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { lowercaseBodyFields } from '../../normalize.js';
import { uploadSlotView } from '../../present/attachments.js';
import { createAttachment } from '../../../contract/attachments-create.js';
import type { AttachmentsService } from '../../../domain/media/attachments.js';

/** `baseUrl`: from configuration only (publicBaseUrl), never the request's Host header. */
export function createAttachmentRoute(app: TypedApp, deps: { attachments: AttachmentsService; baseUrl: string }) {
  route(
    app,
    createAttachment,
    async (req) => {
      const { filename, content_type, size_bytes } = req.body;
      const { attachment, uploadToken } = await deps.attachments.createSlot(principalOf(req).tenant.id, { filename, contentType: content_type, sizeBytes: size_bytes });
      return uploadSlotView(attachment, uploadToken, deps.baseUrl);
    },
    // MIME types are case-insensitive: IMAGE/PNG is the enum's image/png.
    { preValidation: lowercaseBodyFields(['content_type']) },
  );
}
