import { Type, type Static } from 'typebox';
import { operation } from './operation.js';
import { Attachment, AttachmentParams } from './attachment.js';
import { SUPPORTED_UPLOAD_TYPES } from '../domain/media/vocabulary.js';

export const UploadResponse = Type.Object({ attachment: Attachment });
export type UploadResponse = Static<typeof UploadResponse>;

export const uploadAttachment = operation({
  operationId: 'uploadAttachment',
  method: 'PUT',
  path: '/api/v1/attachments/{id}/upload',
  summary: "Upload the bytes to a slot (bearer only: the slot's upload token or the signing secret)",
  description:
    'Send exactly the declared size with Content-Length (without it: 411 / 1001) and the declared Content-Type (else 1002). ' +
    "The bytes must begin as the declared type's format does (else 1002, naming what they look like; nothing is kept). " +
    'An upload cut short keeps nothing, and the slot stays usable; an uploaded slot is 409 / 1012. ' +
    'A body that stops moving (slower than the minimum rate over a window) is 408 / 1002.',
  tags: ['attachments'],
  auth: 'bearer-only',
  params: AttachmentParams,
  rawBody: { contentTypes: SUPPORTED_UPLOAD_TYPES, description: 'the raw bytes, with the Content-Type declared for the slot' },
  responses: { 200: UploadResponse },
  errors: [5001, 1011, 1012, { code: 1001, status: 411 }, { code: 1002, status: 408 }, 5002],
});
