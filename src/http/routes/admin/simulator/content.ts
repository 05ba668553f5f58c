import type { TypedApp } from '../../../typed.js';
import { route } from '../../../route.js';
import { streamFile } from '../../../file-response.js';
import { adminSimulatorContent } from '../../../../contract/admin-simulator-content.js';
import type { SimulatorControls } from '../../../../domain/lines/simulator.js';

export function adminSimulatorContentRoute(app: TypedApp, deps: { simulator: SimulatorControls }) {
  route(app, adminSimulatorContent, async (req, reply) => streamFile(reply, await deps.simulator.sentFile(req.params.id, req.params.file), req.headers.range), { minAnswerRate: true });
}
