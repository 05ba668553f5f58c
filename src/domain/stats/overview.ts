/**
 * The console overview's numbers: messages per local calendar day of the project (its time zone,
 * the same "today" as the first-touch caps) and line (sent, received, failed), first touches used
 * today against the caps, and how webhook delivery is going over those days.
 */
import type { Clock } from '../../clock.js';
import type { Store, Tenant } from '../../store/index.js';
import { FIRST_TOUCH_PER_LINE_PER_DAY } from '../messaging/limits.js';
import { localDate, localDayStart, nextLocalDayStart } from '../messaging/local-time.js';

export interface DailyCounts {
  /** YYYY-MM-DD: the local date in the project's time zone */
  date: string;
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
      const tz = tenant.timezone;
      // The last `days` local days, today included: each from its true local midnight (a day is
      // 23 or 25 hours when clocks change), computed here so that both stores count alike.
      const today = localDayStart(now, tz);
      const starts = [today];
      while (starts.length < days) starts.unshift(localDayStart(starts[0]! - 1, tz));
      const since = starts[0]!;
      const dates = starts.map((start) => localDate(start, tz));
      const [rows, lines, used, webhooks] = await Promise.all([
        store.stats.dailyCounts(tenant.id, starts, nextLocalDayStart(now, tz)),
        store.lines.listByTenant(tenant.id),
        store.messages.tenantFirstTouches(tenant.id, today),
        store.stats.deliveryHealth(tenant.id, since),
      ]);
      const byKey = new Map<string, DailyCounts>();
      for (const r of rows) {
        const key = `${r.day}|${r.lineId ?? ''}`;
        let d = byKey.get(key);
        if (!d) byKey.set(key, (d = { date: dates[r.day]!, lineId: r.lineId, sent: 0, received: 0, failed: 0 }));
        if (r.failed) d.failed += r.count;
        else if (r.direction === 'inbound') d.received += r.count;
        else d.sent += r.count;
      }
      const perLine = await Promise.all(
        lines.map(async (l) => ({ lineId: l.id, used: (await store.messages.firstTouchStats(l.id, today)).count, limit: FIRST_TOUCH_PER_LINE_PER_DAY })),
      );
      return {
        days,
        // YYYY-MM-DD sorts as the days do.
        daily: [...byKey.values()].sort((a, b) => a.date.localeCompare(b.date) || (a.lineId ?? '').localeCompare(b.lineId ?? '')),
        firstTouchesToday: { used, cap: tenant.daily_first_touch_cap, perLine },
        webhooks,
      };
    },
  };
}

export type StatsService = ReturnType<typeof statsService>;
