import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { attachmentView } from '../../present/attachments.js';
import { uploadAttachment } from '../../../contract/attachments-upload.js';
import { bearerToken } from '../../../domain/accounts-tenants/auth.js';
import { isUploadToken, type AttachmentsService } from '../../../domain/media/attachments.js';
import { MAX_UPLOAD_BYTES } from '../../../domain/media/vocabulary.js';
import { watchedBody } from '../../slow-body.js';

/**
 * An answer that goes out before the whole body was read (a refusal before the first byte, a
 * store that failed midway) must not leave the body piped into a stream nobody reads: the socket
 * would stop there, and the client's next request on that keep-alive connection would never be
 * answered. As fastify does for its own body errors, the connection closes after the answer; what
 * still arrives until then is read and dropped.
 */
function releaseUnreadBody(req: FastifyRequest, reply: FastifyReply, body: Readable): void {
  if (req.raw.complete) return;
  reply.header('connection', 'close');
  if (body !== req.raw) {
    req.raw.unpipe(); // the watched body is the only stream it feeds
    body.destroy();
  }
  req.raw.resume();
}

export function uploadAttachmentRoute(app: TypedApp, deps: { attachments: AttachmentsService }) {
  // The binary PUT: its own context, so any content type arrives as an unread stream.
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, _payload, done) => done(null, undefined));
    route(
      scope,
      uploadAttachment,
      async (req, reply) => {
        // Read through the slow-body guard, so a stalled upload is answered 408 (http/slow-body.ts).
        const body = watchedBody(req);
        try {
          const a = await deps.attachments.upload(
            principalOf(req).tenant.id,
            req.params.id,
            { contentType: req.headers['content-type'], contentLength: req.headers['content-length'] },
            body,
          );
          return { attachment: attachmentView(a) };
        } catch (err) {
          releaseUnreadBody(req, reply, body);
          throw err;
        }
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
