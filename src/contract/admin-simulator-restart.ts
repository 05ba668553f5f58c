import { Type, type Static } from 'typebox';
import { operation } from './operation.js';
import { SimulatedLineParams } from './admin-simulator.js';

export const RestartResponse = Type.Object({ ok: Type.Literal(true), service_epoch: Type.String({ description: 'the new epoch: notes staged before are void' }) });
export type RestartResponse = Static<typeof RestartResponse>;

export const adminSimulatorRestart = operation({
  operationId: 'adminSimulatorRestart',
  method: 'POST',
  path: '/admin/v1/lines/{id}/simulate/restart',
  summary: "Restart the line's messaging service (new service epoch)",
  tags: ['admin'],
  auth: 'admin',
  params: SimulatedLineParams,
  responses: { 200: RestartResponse },
  errors: [2011, 1011],
});
