/**
 * The console overview's numbers: messages per UTC day and line (sent, received, failed),
 * first touches used today against the caps, and how webhook delivery is going.
 */
import type { Clock } from '../../clock.js';
import type { Store, Tenant } from '../../store/index.js';
import { FIRST_TOUCH_PER_LINE_PER_DAY, localDayStart } from '../messaging/limits.js';

const DAY_MS = 86_400_000;

export interface DailyCounts {
  day: number;
  lineId: string | null;
  sent: number;
  received: number;
  failed: number;
}

export interface Overview {
  days: number;
  daily: DailyCounts[];
  firstTouchesToday: { used: number; cap: number; perLine: { lineId: string; used: number; limit: number }[] };
  webhooks: { delivered: number; failed: number; pending: number; oldestPendingAt: number | null };
}

export function statsService(deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;
  return {
    async overview(tenant: Tenant, days: number): Promise<Overview> {
      const now = clock.now();
      const since = Math.floor(now / DAY_MS) * DAY_MS - (days - 1) * DAY_MS;
      const today = localDayStart(now, tenant.timezone);
      const [rows, lines, used, webhooks] = await Promise.all([
        store.stats.dailyCounts(tenant.id, since),
        store.lines.listByTenant(tenant.id),
        store.messages.tenantFirstTouches(tenant.id, today),
        store.stats.deliveryHealth(tenant.id, since),
      ]);
      const byKey = new Map<string, DailyCounts>();
      for (const r of rows) {
        const key = `${r.day}|${r.lineId ?? ''}`;
        let d = byKey.get(key);
        if (!d) byKey.set(key, (d = { day: r.day, lineId: r.lineId, sent: 0, received: 0, failed: 0 }));
        if (r.failed) d.failed += r.count;
        else if (r.direction === 'inbound') d.received += r.count;
        else d.sent += r.count;
      }
      const perLine = await Promise.all(
        lines.map(async (l) => ({ lineId: l.id, used: (await store.messages.firstTouchStats(l.id, today)).count, limit: FIRST_TOUCH_PER_LINE_PER_DAY })),
      );
      return {
        days,
        daily: [...byKey.values()].sort((a, b) => a.day - b.day || (a.lineId ?? '').localeCompare(b.lineId ?? '')),
        firstTouchesToday: { used, cap: tenant.daily_first_touch_cap, perLine },
        webhooks,
      };
    },
  };
}

export type StatsService = ReturnType<typeof statsService>;
