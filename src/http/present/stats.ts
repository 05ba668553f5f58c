/** The console overview's numbers, as the contract shows them. */
import { isoOrNull } from '../../clock.js';
import type { StatsResponse } from '../../contract/stats-get.js';
import type { Overview } from '../../domain/stats/overview.js';

export function statsView(o: Overview): StatsResponse {
  const { delivered, failed, pending, oldestPendingAt } = o.webhooks;
  return {
    days: o.days,
    daily: o.daily.map((d) => ({ date: d.date, phone_line_id: d.lineId, sent: d.sent, received: d.received, failed: d.failed })),
    first_touches_today: {
      used: o.firstTouchesToday.used,
      cap: o.firstTouchesToday.cap,
      per_line: o.firstTouchesToday.perLine.map((l) => ({ phone_line_id: l.lineId, used: l.used, limit: l.limit })),
    },
    webhooks: {
      delivered,
      failed,
      pending,
      success_rate: delivered + failed > 0 ? delivered / (delivered + failed) : null,
      oldest_pending_at: isoOrNull(oldestPendingAt),
    },
  };
}
