import type { TypedApp } from '../../typed.js';
import { route } from '../../route.js';
import { healthLive } from '../../../contract/health-live.js';

/** Liveness for load balancers and scripts: the process is up. */
export function healthLiveRoute(app: TypedApp) {
  route(app, healthLive, () => ({ ok: true as const }));
}
