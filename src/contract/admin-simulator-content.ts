import { Type } from 'typebox';
import { operation } from './operation.js';
import { FILE_RESPONSES, RangeHeaders } from './attachment.js';

export const adminSimulatorContent = operation({
  operationId: 'adminSimulatorContent',
  method: 'GET',
  path: '/admin/v1/lines/{id}/simulate/content/{file}',
  summary: 'The exact bytes of a media file or voice note the simulated device was asked to send',
  tags: ['admin'],
  auth: 'admin',
  params: Type.Object({
    id: Type.String({ minLength: 1, maxLength: 100 }),
    file: Type.String({ minLength: 1, maxLength: 100, description: 'att_… or vn_… (a content_path of the device log)' }),
  }),
  headers: RangeHeaders,
  responses: {},
  rawResponses: FILE_RESPONSES,
  errors: [2011, 1011, 5001],
});
