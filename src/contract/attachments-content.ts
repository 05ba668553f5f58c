import { operation } from './operation.js';
import { AttachmentParams, FILE_RESPONSES, RangeHeaders } from './attachment.js';

export const getAttachmentContent = operation({
  operationId: 'getAttachmentContent',
  method: 'GET',
  path: '/api/v1/attachments/{id}/content',
  summary: 'Stream the bytes (uploaded or inbound `in_…`); honours Range',
  description: 'Before upload 400 / 5004; past its expires_at 404 / 5001.',
  tags: ['attachments'],
  auth: 'tenant',
  params: AttachmentParams,
  headers: RangeHeaders,
  responses: {},
  rawResponses: FILE_RESPONSES,
  errors: [5001, 5004],
});
