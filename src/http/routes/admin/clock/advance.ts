import type { TypedApp } from '../../../typed.js';
import { route } from '../../../route.js';
import { adminAdvanceClock } from '../../../../contract/admin-clock-advance.js';
import { isoAt, type Clock } from '../../../../clock.js';

/** Registered only with BLUELINE_TEST_CLOCK=1; otherwise the route does not exist (404). */
export function adminAdvanceClockRoute(app: TypedApp, deps: { clock: Clock }) {
  if (!deps.clock.adjustable) return;
  route(app, adminAdvanceClock, async (req) => ({ now: isoAt(deps.clock.advance(req.body.ms)) }));
}
