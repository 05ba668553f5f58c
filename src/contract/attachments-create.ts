import { Type, type Static } from 'typebox';
import { DateTime, ERROR_CODES_KEYWORD } from './common.js';
import { operation } from './operation.js';
import { MAX_UPLOAD_BYTES, SUPPORTED_UPLOAD_TYPES } from '../domain/media/vocabulary.js';

/** A type outside the list is 5003 (spec), not 1002; compared case-insensitively. */
export const UploadContentType = Type.Enum(SUPPORTED_UPLOAD_TYPES, {
  type: 'string',
  description: 'the file\'s MIME type (any case; stored in lower case); another type is 5003',
  [ERROR_CODES_KEYWORD]: { enum: 5003 },
});

export const CreateAttachmentRequest = Type.Object(
  {
    filename: Type.String({ minLength: 1, maxLength: 255 }),
    content_type: UploadContentType,
    size_bytes: Type.Integer({ minimum: 1, maximum: MAX_UPLOAD_BYTES, description: 'the exact size the upload will have; over 100 MiB is 5002', [ERROR_CODES_KEYWORD]: { maximum: 5002 } }),
  },
  { additionalProperties: false },
);
export type CreateAttachmentRequest = Static<typeof CreateAttachmentRequest>;

export const UploadSlot = Type.Object({
  attachment_id: Type.String({ description: 'att_…' }),
  upload_url: Type.String({ format: 'uri', description: 'PUT the bytes here (under PUBLIC_BASE_URL)' }),
  required_headers: Type.Object({
    authorization: Type.String({ description: 'Bearer <a token for this slot alone>: whoever uploads never needs the signing secret' }),
    'content-type': Type.String({ description: 'the declared type' }),
  }),
  expires_at: DateTime('the slot expiry (15 minutes)'),
});
export type UploadSlot = Static<typeof UploadSlot>;

export const createAttachment = operation({
  operationId: 'createAttachment',
  method: 'POST',
  path: '/api/v1/attachments',
  summary: 'Register an attachment and get an upload slot (valid 15 minutes)',
  tags: ['attachments'],
  auth: 'tenant',
  body: CreateAttachmentRequest,
  responses: { 200: UploadSlot },
  errors: [5003, 5002],
});
