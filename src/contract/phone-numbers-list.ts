import { Type, type Static } from 'typebox';
import { NoQuery } from './common.js';
import { operation } from './operation.js';

export const PhoneLine = Type.Object({
  id: Type.String({ format: 'uuid', description: 'same value as phone_line_id' }),
  phone_line_id: Type.String({ format: 'uuid' }),
  phone_number: Type.String({ description: 'E.164' }),
  service: Type.Literal('imessage'),
  is_active: Type.Boolean({ description: 'a sendable line has true' }),
  capabilities: Type.Array(Type.Union([Type.Literal('imessage'), Type.Literal('send'), Type.Literal('receive')])),
});
export type PhoneLine = Static<typeof PhoneLine>;

export const listPhoneNumbers = operation({
  operationId: 'listPhoneNumbers',
  method: 'GET',
  path: '/api/v1/phone-numbers',
  summary: 'List the phone lines assigned to the project',
  tags: ['phone lines'],
  auth: 'tenant',
  // No query parameters: an unknown one is 1002, as on every route.
  query: NoQuery,
  responses: { 200: Type.Object({ phone_numbers: Type.Array(PhoneLine) }) },
  errors: [],
});
export type ListPhoneNumbersResponse = Static<(typeof listPhoneNumbers.responses)[200]>;
