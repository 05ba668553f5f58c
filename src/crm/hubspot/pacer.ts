/**
 * Keeps reply push inside each portal's HubSpot budget (public apps: 110
 * requests per rolling 10 s) instead of running into 429s: a log of this
 * process's paced calls per portal, in real time (HubSpot's window is), with a
 * small margin for the time between our stamp and HubSpot's. HubSpot's
 * X-HubSpot-RateLimit-* headers set the budget; an answer saying nothing remains
 * (other callers, other processes) holds the portal back for one interval.
 */
import type { RateInfo } from './client.js';

export const DEFAULT_BUDGET: RateInfo = { max: 110, remaining: 110, intervalMs: 10_000 };
const MARGIN_MS = 250;

interface PortalBudget {
  max: number;
  intervalMs: number;
  log: number[];
  heldUntil: number;
}

export function budgetPacer(opts: { budget?: RateInfo; marginMs?: number } = {}) {
  const budget = opts.budget ?? DEFAULT_BUDGET;
  const margin = opts.marginMs ?? MARGIN_MS;
  const portals = new Map<string, PortalBudget>();

  const of = (portalId: string): PortalBudget => {
    let p = portals.get(portalId);
    if (!p) portals.set(portalId, (p = { max: budget.max, intervalMs: budget.intervalMs, log: [], heldUntil: 0 }));
    return p;
  };

  return {
    /** Waits until the portal's budget has room, then takes a slot. */
    async pace(portalId: string): Promise<void> {
      const p = of(portalId);
      for (;;) {
        const now = Date.now();
        const window = p.intervalMs + margin;
        while (p.log.length && p.log[0]! <= now - window) p.log.shift();
        const wait = Math.max(p.heldUntil - now, p.log.length >= p.max ? p.log[0]! + window - now : 0);
        if (wait <= 0) {
          p.log.push(now);
          return;
        }
        await new Promise((r) => setTimeout(r, wait));
      }
    },

    observe(portalId: string, info: RateInfo): void {
      const p = of(portalId);
      if (info.max > 0) p.max = info.max;
      if (info.intervalMs > 0) p.intervalMs = info.intervalMs;
      // Our own log full explains it; otherwise someone else spent the budget.
      if (info.remaining <= 0 && p.log.length < p.max) p.heldUntil = Math.max(p.heldUntil, Date.now() + p.intervalMs + margin);
    },
  };
}

export type BudgetPacer = ReturnType<typeof budgetPacer>;
