import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { attachmentView } from '../../present/attachments.js';
import { uploadAttachment } from '../../../contract/attachments-upload.js';
import { bearerToken } from '../../../domain/accounts-tenants/auth.js';
import { isUploadToken, type AttachmentsService } from '../../../domain/media/attachments.js';
import { MAX_UPLOAD_BYTES } from '../../../domain/media/vocabulary.js';
import { watchedBody } from '../../slow-body.js';

export function uploadAttachmentRoute(app: TypedApp, deps: { attachments: AttachmentsService }) {
  // The binary PUT: its own context, so any content type arrives as an unread stream.
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, _payload, done) => done(null, undefined));
    route(
      scope,
      uploadAttachment,
      async (req) => {
        const a = await deps.attachments.upload(
          principalOf(req).tenant.id,
          req.params.id,
          { contentType: req.headers['content-type'], contentLength: req.headers['content-length'] },
          // Read through the slow-body guard, so a stalled upload is answered 408 (http/slow-body.ts).
          watchedBody(req),
        );
        return { attachment: attachmentView(a) };
      },
      {
        bodyLimit: MAX_UPLOAD_BYTES,
        minBodyRate: true,
        // The slot's upload token is checked here, before the auth hook: a principal set now
        // stands there (http/auth.ts), and any other bearer goes on to be checked as a signing secret.
        onRequest: async (req) => {
          const token = bearerToken(req.headers.authorization);
          if (token && isUploadToken(token)) req.principal = await deps.attachments.uploadPrincipal((req.params as { id: string }).id, token);
        },
      },
    );
  });
}
