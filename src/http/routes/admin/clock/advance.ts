import type { TypedApp } from '../../../typed.js';
import { route } from '../../../route.js';
import { adminAdvanceClock } from '../../../../contract/admin-clock-advance.js';
import { isoAt, type Clock } from '../../../../clock.js';
import { DomainError } from '../../../../errors/registry.js';

/** The last instant an ISO 8601 time with a four-digit year can name (9999-12-31T23:59:59.999Z). */
const LAST_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** Registered only with BLUELINE_TEST_CLOCK=1; otherwise the route does not exist (404). */
export function adminAdvanceClockRoute(app: TypedApp, deps: { clock: Clock }) {
  if (!deps.clock.adjustable) return;
  route(app, adminAdvanceClock, async (req) => {
    // Checked before the move: a time past it has no ISO form, and every answer naming a time failed (500).
    if (deps.clock.now() + req.body.ms > LAST_INSTANT) throw new DomainError(1002, `ms: the clock cannot move past ${isoAt(LAST_INSTANT)} (it is ${isoAt(deps.clock.now())})`);
    return { now: isoAt(deps.clock.advance(req.body.ms)) };
  });
}
