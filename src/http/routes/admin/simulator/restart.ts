import type { TypedApp } from '../../../typed.js';
import { route } from '../../../route.js';
import { adminSimulatorRestart } from '../../../../contract/admin-simulator-restart.js';
import type { SimulatorControls } from '../../../../domain/lines/simulator.js';

export function adminSimulatorRestartRoute(app: TypedApp, deps: { simulator: SimulatorControls }) {
  route(app, adminSimulatorRestart, async (req) => ({ ok: true as const, service_epoch: await deps.simulator.restart(req.params.id) }));
}
