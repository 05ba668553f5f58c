import type { TypedApp } from '../../../typed.js';
import { route } from '../../../route.js';
import { adminLineHealth } from '../../../../contract/admin-lines-health.js';
import { isoAt } from '../../../../clock.js';
import type { LineHealthCheck } from '../../../../domain/lines/health.js';

export function adminLineHealthRoute(app: TypedApp, deps: { lineHealth: LineHealthCheck }) {
  route(app, adminLineHealth, async (req) => {
    const h = await deps.lineHealth(req.params.id);
    return {
      health: {
        phone_line_id: h.line.id,
        state: h.state,
        reason: h.reason,
        service_epoch: h.serviceEpoch,
        service_epoch_source: h.epochSource,
        checked_at: isoAt(h.checkedAt),
      },
    };
  });
}
