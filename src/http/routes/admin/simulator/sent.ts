import type { TypedApp } from '../../../typed.js';
import { route } from '../../../route.js';
import { adminSimulatorSent } from '../../../../contract/admin-simulator-sent.js';
import type { SimulatorControls } from '../../../../domain/lines/simulator.js';

export function adminSimulatorSentRoute(app: TypedApp, deps: { simulator: SimulatorControls }) {
  route(app, adminSimulatorSent, async (req) => {
    const entries = await deps.simulator.sent(req.params.id, req.query.limit ?? 200);
    return { sent: entries.map((e) => ({ id: e.id, ...e.entry })) };
  });
}
