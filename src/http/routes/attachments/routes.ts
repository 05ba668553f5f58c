import { Type } from 'typebox';
import type { FastifyReply } from 'fastify';
import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { bearerToken } from '../../../domain/accounts-tenants/auth.js';
import { MAX_UPLOAD_BYTES, isUploadToken, parseRange, type AttachmentsService } from '../../../domain/media/attachments.js';
import { publicBaseUrl, type Config } from '../../../config.js';
import type { Readable } from 'node:stream';
import { watchedBody } from '../../slow-body.js';

const tags = ['attachments'];
const Params = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
export const AttachmentSchema = Type.Object({
  attachment_id: Type.String(),
  content_type: Type.String(),
  size_bytes: Type.Integer(),
  filename: Type.Union([Type.String(), Type.Null()]),
  uploaded_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  expires_at: Type.String({ format: 'date-time' }),
});

/** Streams a stored file with Content-Type/Length, a filename, and Range support (206/416). */
export async function streamFile(
  reply: FastifyReply,
  file: { size: number; contentType: string; filename: string | null; open(range?: { start: number; end: number }): Readable },
  rangeHeader: string | undefined,
) {
  reply.header('Accept-Ranges', 'bytes').header('Content-Type', file.contentType);
  if (file.filename) reply.header('Content-Disposition', `attachment; filename*=UTF-8''${encodeURIComponent(file.filename)}`);
  const range = rangeHeader ? parseRange(rangeHeader, file.size) : 'ignore';
  if (range === undefined) {
    return reply.status(416).header('Content-Range', `bytes */${file.size}`).send();
  }
  if (range === 'ignore') {
    return reply.status(200).header('Content-Length', String(file.size)).send(file.open());
  }
  return reply
    .status(206)
    .header('Content-Range', `bytes ${range.start}-${range.end}/${file.size}`)
    .header('Content-Length', String(range.end - range.start + 1))
    .send(file.open(range));
}

export function attachmentRoutes(app: TypedApp, deps: { attachments: AttachmentsService; config: Pick<Config, 'publicBaseUrl' | 'host' | 'port'> }) {
  const { attachments } = deps;
  // From configuration only, never the request's Host header, which the caller controls
  // (a forged Host would hand out upload URLs, and upload tokens with them, elsewhere).
  const baseUrl = publicBaseUrl(deps.config);

  app.post(
    '/api/v1/attachments',
    {
      schema: {
        tags,
        summary: 'Register an attachment and get an upload slot (valid 15 minutes)',
        body: Type.Object(
          {
            filename: Type.String({ minLength: 1, maxLength: 255 }),
            content_type: Type.String({ minLength: 1, maxLength: 100 }),
            size_bytes: Type.Integer({ minimum: 1 }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            attachment_id: Type.String(),
            upload_url: Type.String(),
            required_headers: Type.Object({ authorization: Type.String(), 'content-type': Type.String() }),
            expires_at: Type.String({ format: 'date-time' }),
          }),
        },
      },
    },
    async (req) => {
      const { tenant } = principalOf(req);
      const { attachment: a, uploadToken } = await attachments.createSlot(tenant.id, req.body);
      // A token for this slot alone, never the caller's signing secret: whoever is handed
      // the upload (a browser, a worker) can upload this one file and nothing else.
      return {
        attachment_id: a.id,
        upload_url: `${baseUrl}/api/v1/attachments/${a.id}/upload`,
        required_headers: { authorization: `Bearer ${uploadToken}`, 'content-type': a.content_type },
        expires_at: new Date(a.expires_at).toISOString(),
      };
    },
  );

  // The binary PUT: its own context, so any content type arrives as an unread stream.
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, _payload, done) => done(null, undefined));
    // The slot's upload token is checked here, before the auth hook: a principal set now
    // stands there (http/auth.ts), and any other bearer goes on to be checked as a signing secret.
    scope.addHook('onRequest', async (req) => {
      const token = bearerToken(req.headers.authorization);
      if (token && isUploadToken(token)) req.principal = await attachments.uploadPrincipal((req.params as { id: string }).id, token);
    });
    (scope as TypedApp).put(
      '/api/v1/attachments/:id/upload',
      {
        config: { auth: 'bearer-only', minBodyRate: true },
        bodyLimit: MAX_UPLOAD_BYTES,
        schema: {
          tags,
          summary: 'Upload the bytes (bearer only: the slot\'s upload token or the signing secret; Content-Type as declared; Content-Length required)',
          params: Params,
          response: { 200: Type.Object({ attachment: AttachmentSchema }) },
        },
      },
      async (req) => {
        const { tenant } = principalOf(req);
        const a = await attachments.upload(
          tenant.id,
          req.params.id,
          { contentType: req.headers['content-type'], contentLength: req.headers['content-length'] },
          watchedBody(req),
        );
        return { attachment: (await attachments.metadata(tenant.id, a.id)) };
      },
    );
  });

  app.get(
    '/api/v1/attachments/:id',
    { schema: { tags, params: Params, response: { 200: Type.Object({ attachment: AttachmentSchema }) } } },
    async (req) => ({ attachment: await attachments.metadata(principalOf(req).tenant.id, req.params.id) }),
  );

  app.get(
    '/api/v1/attachments/:id/content',
    { schema: { tags, summary: 'Stream the bytes (uploaded or inbound `in_…`); honours Range', params: Params } },
    async (req, reply) => {
      const c = await attachments.content(principalOf(req).tenant.id, req.params.id);
      return streamFile(reply, { size: c.size, contentType: c.attachment.content_type, filename: c.attachment.filename, open: c.open }, req.headers.range);
    },
  );
}

