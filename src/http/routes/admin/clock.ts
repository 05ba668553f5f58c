import { Type } from 'typebox';
import type { TypedApp } from '../../typed.js';
import type { Clock } from '../../../clock.js';

/** Registered only with BLUELINE_TEST_CLOCK=1; otherwise the route does not exist (404). */
export function adminClockRoutes(app: TypedApp, deps: { clock: Clock }) {
  if (!deps.clock.adjustable) return;
  app.post(
    '/admin/v1/clock/advance',
    {
      config: { auth: 'admin' },
      schema: {
        tags: ['admin'],
        summary: 'Move business time forward (test clock only)',
        body: Type.Object({ ms: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
        response: { 200: Type.Object({ now: Type.String({ format: 'date-time' }) }) },
      },
    },
    async (req) => ({ now: new Date(deps.clock.advance(req.body.ms)).toISOString() }),
  );
}
