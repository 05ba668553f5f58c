import { Type } from 'typebox';
import { operation } from './operation.js';
import { EventRecord } from './event.js';

export const getEvent = operation({
  operationId: 'getEvent',
  method: 'GET',
  path: '/api/v1/events/{id}',
  summary: 'One event with its full attempt history',
  tags: ['events'],
  auth: 'tenant-header',
  params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100, description: 'evt_…' }) }),
  responses: { 200: EventRecord },
  errors: [2011],
});
