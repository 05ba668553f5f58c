/**
 * The reply-notify job: every BLUELINE_CRM_PUSH_INTERVAL_MS (business clock,
 * default two minutes) each tenant with an active HubSpot install gets a run;
 * one process runs a tenant at a time (a lease on its job row). A run pushes
 * each portal's replies oldest first, the portals in parallel, each paced to
 * its HubSpot budget.
 *
 * Breaker (per tenant): five consecutive failed pushes (5xx, network, 403, and
 * 429s past their retry window) open it; a failed push ends its portal's run, so
 * they are five runs apart. While open, a run makes one probe push; its success
 * closes the breaker and the backlog drains in the same run.
 * A 429 stops that portal's run and pauses the portal for HubSpot's window.
 *
 * Replies are queued when they are recorded (store/hubspot-push.ts); a run first sweeps the
 * tenant's new contact links for replies recorded before the link was visible to them.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import type { Store, PushCandidate, PushState, Tenant } from '../../store/index.js';
import type { ReplyPusher, PushOutcome } from './reply-push.js';
import { claimLoop } from '../../jobs/claim-loop.js';

export const BREAKER_THRESHOLD = 5;
const TENANT_LEASE_MS = 10 * 60_000;
const TENANTS_PER_CLAIM = 16;
const BATCH = 50;
/**
 * A contact link is swept for replies recorded without seeing it (written at the moment the link
 * was made) until it is this old: far longer than a transaction that records a reply takes.
 */
export const LINK_SETTLE_MS = 60_000;
/**
 * Processes of the version before the queue record replies without queueing them, and a rolling
 * upgrade runs them beside the new ones for a while: until this long after the queue began
 * (migration 027), no link settles, so every run sweeps them all (what each run read before).
 */
export const UPGRADE_SWEEP_MS = 60 * 60_000;

/** A project's reply push: its breaker, the replies waiting, the last push (ms since the epoch). */
export interface ReplyPushStatus {
  breaker: { state: PushState['breaker_state']; consecutiveFailures: number; openedAt: number | null; lastError: string | null };
  pushBacklog: number;
  lastPushAt: number | null;
}

interface RunState {
  tenant: Tenant;
  open: boolean;
}

export function replyPushJob(deps: { store: Store; clock: Clock; pusher: ReplyPusher; logger?: Logger }, opts: { intervalMs: number; pollMs: number }) {
  const { store, clock, pusher } = deps;
  const push = store.hubspotPush;
  let queueSince: number | null | undefined;

  /** Links made before this may settle; null while the upgrade's sweep lasts. */
  async function settleBefore(now: number): Promise<number | null> {
    if (queueSince === undefined) queueSince = await push.queueSince();
    if (queueSince !== null && now < queueSince + UPGRADE_SWEEP_MS) return null;
    return now - LINK_SETTLE_MS;
  }

  /** Records a push's outcome for the breaker; 'stop' when the run of this portal should stop. */
  async function settle(run: RunState, c: PushCandidate, out: PushOutcome, pausedUntil: number | null): Promise<'next' | 'stop'> {
    const now = clock.now();
    switch (out.kind) {
      case 'pushed':
        await push.succeeded(run.tenant.id, now);
        if (pausedUntil !== null) await push.pausePortal(c.portal_id, null);
        return 'next';
      case 'taken':
      case 'given_up':
        return 'next';
      case 'token_invalid':
        return 'stop';
      case 'rate_limited': {
        // A 429 counts only once the window HubSpot gave before it has passed: then HubSpot keeps refusing.
        if (pausedUntil !== null && pausedUntil <= now) await failed(run, c, out.error);
        await push.pausePortal(c.portal_id, now + out.retryAfterMs);
        return 'stop';
      }
      case 'failed':
        // The portal's run ends here: its replies wait for the next run, the failed one first
        // (order kept). Retried at once, one blip of HubSpot's would spend the five failures
        // that open the breaker within a second; one failure per run spreads them over 10 minutes.
        await failed(run, c, out.error);
        return 'stop';
    }
  }

  async function failed(run: RunState, c: PushCandidate, error: string) {
    if (await push.failedPush(run.tenant.id, error, BREAKER_THRESHOLD, clock.now())) {
      run.open = true;
      deps.logger?.warn({ tenant: run.tenant.slug, tenant_id: run.tenant.id, portal_id: c.portal_id, consecutive_failures: BREAKER_THRESHOLD, last_error: error }, 'HubSpot reply push breaker opened: one probe push per run until one succeeds');
    }
  }

  async function portalPause(portalId: string): Promise<{ blocked: boolean; until: number | null }> {
    const until = await push.portalPause(portalId);
    return { blocked: until !== null && until > clock.now(), until };
  }

  async function pushPortal(run: RunState, portalId: string): Promise<void> {
    for (;;) {
      if (run.open) return;
      const pause = await portalPause(portalId);
      if (pause.blocked) return;
      const batch = await push.candidates(run.tenant.id, portalId, clock.now(), BATCH);
      if (batch.length === 0) return;
      for (const c of batch) {
        if (run.open) return;
        const next = await settle(run, c, await pusher.push(run.tenant, c), pause.until);
        pause.until = null;
        if (next === 'stop') return;
      }
      if (batch.length < BATCH) return;
    }
  }

  /** While open: one push, the oldest reply over the tenant's portals; true when it closed the breaker. */
  async function probe(run: RunState, portals: string[]): Promise<boolean> {
    let oldest: { c: PushCandidate; until: number | null } | undefined;
    for (const p of portals) {
      const pause = await portalPause(p);
      if (pause.blocked) continue;
      const [c] = await push.candidates(run.tenant.id, p, clock.now(), 1);
      if (c && (!oldest || c.sent_at < oldest.c.sent_at)) oldest = { c, until: pause.until };
    }
    if (!oldest) return false;
    const out = await pusher.push(run.tenant, oldest.c);
    await settle(run, oldest.c, out, oldest.until);
    if (out.kind !== 'pushed') return false;
    if (await push.closeBreaker(run.tenant.id)) {
      deps.logger?.info({ tenant: run.tenant.slug, tenant_id: run.tenant.id, portal_id: oldest.c.portal_id }, 'HubSpot reply push breaker closed: a probe push succeeded; the backlog drains');
    }
    run.open = false;
    return true;
  }

  async function runTenant(state: PushState): Promise<void> {
    const tenant = await store.tenants.getById(state.tenant_id);
    if (!tenant) return;
    const portals = (await store.hubspot.listInstalls(tenant.id)).filter((i) => i.status === 'active').map((i) => i.portal_id);
    const now = clock.now();
    await push.sweepLinks(tenant.id, now, await settleBefore(now));
    const run: RunState = { tenant, open: state.breaker_state === 'open' };
    if (run.open && !(await probe(run, portals))) return;
    await Promise.all(portals.map((p) => pushPortal(run, p)));
  }

  /** Runs every tenant whose run is due now; the number run. */
  async function runDue(): Promise<number> {
    await push.ensureStates();
    const started = clock.now();
    const due = await push.claimDueTenants(started, started + TENANT_LEASE_MS, TENANTS_PER_CLAIM);
    await Promise.all(
      due.map(async (s) => {
        try {
          await runTenant(s);
        } catch (err) {
          deps.logger?.error({ err, tenant_id: s.tenant_id }, 'HubSpot reply push run failed; a reply in flight is recovered when its lease ends');
        }
        await push.finishRun(s.tenant_id, started + opts.intervalMs).catch((err) => deps.logger?.error({ err, tenant_id: s.tenant_id }, 'HubSpot reply push could not end its run; its lease runs out'));
      }),
    );
    return due.length;
  }

  // Run due times are on the business clock, which the loop's timers do not follow (a test clock
  // moves without them): none is given, so the poll bounds the wait, as it always did.
  const loop = claimLoop({ tick: runDue, nextDueAt: async () => null, batch: TENANTS_PER_CLAIM, pollMs: opts.pollMs, label: 'HubSpot reply push', logger: deps.logger });

  return {
    runDue,

    /** What GET /api/v1/integrations/hubspot shows of reply push. */
    async status(tenantId: string): Promise<ReplyPushStatus> {
      const s = await push.state(tenantId);
      return {
        breaker: { state: s?.breaker_state ?? 'closed', consecutiveFailures: s?.consecutive_failures ?? 0, openedAt: s?.opened_at ?? null, lastError: s?.last_error ?? null },
        pushBacklog: await push.backlog(tenantId),
        lastPushAt: s?.last_push_at ?? null,
      };
    },

    start: loop.start,
    stop: loop.stop,
  };
}

export type ReplyPushJob = ReturnType<typeof replyPushJob>;
