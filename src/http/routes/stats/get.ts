import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { getStats } from '../../../contract/stats-get.js';
import type { StatsService } from '../../../domain/stats/overview.js';
import { statsView } from '../../present/stats.js';

export function getStatsRoute(app: TypedApp, deps: { stats: StatsService }) {
  route(app, getStats, async (req) => statsView(await deps.stats.overview(principalOf(req).tenant, req.query.days ?? 30)));
}
