import { Type } from 'typebox';
import { operation } from './operation.js';

export const healthLive = operation({
  operationId: 'healthLive',
  method: 'GET',
  path: '/healthz',
  summary: 'Liveness: the process is up',
  tags: ['health'],
  auth: 'none',
  responses: { 200: Type.Object({ ok: Type.Literal(true) }) },
  errors: [],
  hidden: true,
});
