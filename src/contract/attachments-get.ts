import { Type, type Static } from 'typebox';
import { operation } from './operation.js';
import { Attachment, AttachmentParams } from './attachment.js';

export const GetAttachmentResponse = Type.Object({ attachment: Attachment });
export type GetAttachmentResponse = Static<typeof GetAttachmentResponse>;

export const getAttachment = operation({
  operationId: 'getAttachment',
  method: 'GET',
  path: '/api/v1/attachments/{id}',
  summary: "An attachment's metadata (uploaded or inbound media)",
  description: 'Past its expires_at an attachment is 404 / 5001, as for a send.',
  tags: ['attachments'],
  auth: 'tenant',
  params: AttachmentParams,
  responses: { 200: GetAttachmentResponse },
  errors: [5001],
});
