import { Type } from 'typebox';
import { operation } from './operation.js';

const StoreKind = Type.Enum(['sqlite', 'postgres'], { type: 'string' });

export const healthReady = operation({
  operationId: 'healthReady',
  method: 'GET',
  path: '/readyz',
  summary: 'Readiness: start-up is over and the store answers (a first start has written DATA_DIR/demo.json)',
  tags: ['health'],
  auth: 'none',
  responses: {
    200: Type.Object({ ok: Type.Literal(true), store: StoreKind }),
    503: Type.Object({ ok: Type.Literal(false), store: StoreKind, error: Type.Enum(['starting', 'store unreachable'], { type: 'string' }) }),
  },
  errors: [],
  hidden: true,
});
