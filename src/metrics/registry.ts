/**
 * The service's Prometheus metrics (prom-client), one registry per app. Counters and histograms
 * are fed as things happen (the observer, the HTTP hooks); gauges of shared state (first
 * touches, pending deliveries, lines) are read at scrape time with a few cheap queries, so every
 * process reports the same figures for them (aggregate with max(), not sum()).
 *
 * No tenant label anywhere: the number of tenants is not bounded by the operator, and a label
 * per tenant would multiply every series. Labels are bounded sets: route templates (never raw
 * paths), methods, status classes, outcomes, message kinds, line states.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Clock } from '../clock.js';
import type { Store } from '../store/index.js';
import type { DriverRegistry } from '../drivers/registry.js';
import { metricsQueries } from '../store/metrics-queries.js';
import { FIRST_TOUCH_PER_LINE_PER_DAY, localDayStart } from '../domain/messaging/limits.js';
import { lineState } from '../domain/lines/health.js';
import { SENT_KINDS, type ServiceObserver } from './observer.js';
import { HOUSEKEPT_KINDS } from '../domain/housekeeping.js';
import { httpStats } from './http-stats.js';
import { CALL_KINDS, CALL_OUTCOMES } from '../crm/hubspot/client.js';

const statusClass = (status: number | null) => (status === null ? 'none' : `${Math.floor(status / 100)}xx`);

/** The outcomes an attempt's answer can have (delivery/worker.ts): 2xx delivers; 5xx and none retry, then fail; any other answer fails. */
const ATTEMPT_SERIES = [
  ['delivered', ['2xx']],
  ['retry', ['5xx', 'none']],
  ['failed', ['3xx', '4xx', '5xx', 'none']],
] as const;

/** A tenant's local day started at most this long ago (25 hours on a daylight-saving day), with room. */
const LOOKBACK_MS = 26 * 3600_000;

export interface ScrapeSources {
  store: Store;
  clock: Clock;
  drivers: DriverRegistry;
  sseConnections(): number;
  sseBufferedBytes(): number;
}

/** `hubspot`: the HubSpot integration is configured (its series are made, at 0, only then). */
export function createMetrics(opts: { hubspot?: boolean } = {}) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Gauges named like counters, which Prometheus's linter refuses; nodejs_active_handles and
  // friends (by type) carry the same figures.
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) registry.removeSingleMetric(name);
  const registers = [registry];
  // What each scrape reads from the database: shown only once this process has read it. Before
  // that (the database down since the start) zeros would pass for figures; after, a failed read
  // keeps the last ones, and blueline_database_up says they are not fresh.
  const databaseRegistry = new Registry();
  const fromDatabase = [databaseRegistry];
  let databaseRead = false;

  const http = httpStats({ requests: 'blueline_http_requests_total', duration: 'blueline_http_request_duration_seconds' });
  const messagesSent = new Counter({
    name: 'blueline_messages_sent_total',
    help: 'Outbound messages handed to a line, by kind and result (sent: the line took it; failed: it refused or was unreachable). A send whose answer never came counts once reconciliation settles it',
    labelNames: ['kind', 'result'] as const,
    registers,
  });
  const failedAfterSend = new Counter({
    name: 'blueline_messages_failed_after_send_total',
    help: 'Outbound messages a line took (counted sent above) and then reported failed: Messages could not deliver them',
    registers,
  });
  const messagesReceived = new Counter({ name: 'blueline_messages_received_total', help: 'Inbound messages recorded from the lines', registers });
  const epochChanges = new Counter({
    name: 'blueline_line_service_restarts_total',
    help: "Service-epoch changes: a line's messaging service restarted (staged voice notes for it become void)",
    registers,
  });
  const webhookAttempts = new Counter({
    name: 'blueline_webhook_attempts_total',
    help: 'Webhook delivery attempts, by outcome (delivered, retry: another attempt is scheduled, failed: no more attempts) and status class (none: network error or timeout)',
    labelNames: ['outcome', 'status_class'] as const,
    registers,
  });
  const webhookAttemptDuration = new Histogram({
    name: 'blueline_webhook_attempt_duration_seconds',
    help: 'Time a receiver took to answer one webhook attempt',
    buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  const deliveryLatency = new Histogram({
    name: 'blueline_webhook_delivery_latency_seconds',
    help: "From an event's recording to its webhook's 2xx, retries included",
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
    registers,
  });
  const pending = new Gauge({ name: 'blueline_webhook_deliveries_pending', help: 'Webhook deliveries not yet made (due now or awaiting a retry)', registers: fromDatabase });
  const oldestPending = new Gauge({ name: 'blueline_webhook_oldest_pending_age_seconds', help: 'Age of the oldest pending webhook delivery (0 when none)', registers: fromDatabase });
  const sse = new Gauge({ name: 'blueline_sse_connections', help: 'Open event streams (SSE) on this process', registers });
  const sseBuffered = new Gauge({ name: 'blueline_sse_buffered_bytes', help: "Bytes written to this process's open event streams that their clients have not taken yet", registers });
  const lines = new Gauge({
    name: 'blueline_phone_lines',
    help: "Phone lines by state: up, down (its service is not answering), unknown (no answer within 2 s), inactive (turned off or not sending)",
    labelNames: ['state'] as const,
    registers: fromDatabase,
  });
  const ftUsed = new Gauge({ name: 'blueline_first_touches_used', help: "First touches sent today, each tenant's local day, all tenants", registers: fromDatabase });
  const ftCap = new Gauge({ name: 'blueline_first_touches_cap', help: 'Sum of the active tenants’ daily first-touch caps', registers: fromDatabase });
  const ftTenantsAtCap = new Gauge({ name: 'blueline_tenants_at_first_touch_cap', help: 'Active tenants whose daily first-touch cap is used up', registers: fromDatabase });
  const ftLineCapacity = new Gauge({ name: 'blueline_line_first_touch_capacity', help: `First touches the sending lines can make in a day (${FIRST_TOUCH_PER_LINE_PER_DAY} each)`, registers: fromDatabase });
  const ftLinesAtLimit = new Gauge({ name: 'blueline_lines_at_first_touch_limit', help: `Sending lines that made their ${FIRST_TOUCH_PER_LINE_PER_DAY} first touches today`, registers: fromDatabase });
  const rowsDeleted = new Counter({
    name: 'blueline_housekeeping_deleted_rows_total',
    help: 'Expired rows the housekeeping pass deleted, by kind (idempotency_record, upload_slot, voice_note, hubspot_install_state, console_session); attachment_file counts files deleted (their rows kept), partial_upload temporaries a killed process left, orphan_blob blobs no row names',
    labelNames: ['kind'] as const,
    registers,
  });
  const hubspotCalls = new Counter({
    name: 'blueline_hubspot_calls_total',
    help: "Calls into HubSpot, by what they are counted as (the CRM call table's kinds; install: the install's own calls) and outcome (ok, or the failure: unauthorized, forbidden, not_found, rate_limited, server, invalid_grant, bad_request, network)",
    labelNames: ['kind', 'outcome'] as const,
    registers,
  });
  const pushBreakers = new Gauge({
    name: 'blueline_hubspot_push_breakers_open',
    help: "Projects with HubSpot installed whose reply push breaker is open (five pushes failed in a row: one probe a run until one succeeds)",
    registers: fromDatabase,
  });
  const repliesWaiting = new Gauge({ name: 'blueline_hubspot_replies_waiting', help: 'Replies queued for HubSpot timelines and not pushed yet (over active installs)', registers: fromDatabase });
  const oldestWaitingReply = new Gauge({
    name: 'blueline_hubspot_oldest_waiting_reply_age_seconds',
    help: 'Time since the oldest reply waiting for HubSpot was queued (0 when none)',
    registers: fromDatabase,
  });
  const scrapeErrors = new Counter({ name: 'blueline_metrics_scrape_errors_total', help: 'Scrapes whose database reads failed (their gauges keep the previous values)', registers });
  const databaseUp = new Gauge({
    name: 'blueline_database_up',
    help: "Whether this scrape's database reads succeeded (0: the database's figures are the last this process read, or absent when it has read none)",
    registers,
  });

  // Every series of a fixed label set exists from the start, at 0. A counter series born at its
  // first increment is invisible to rate() and increase() (no earlier sample to rise from): the
  // first failed send or webhook of a process, often the only one, would never reach the alerts.
  for (const kind of SENT_KINDS) for (const result of ['sent', 'failed'] as const) messagesSent.inc({ kind, result }, 0);
  for (const [outcome, classes] of ATTEMPT_SERIES) for (const status_class of classes) webhookAttempts.inc({ outcome, status_class }, 0);
  for (const kind of HOUSEKEPT_KINDS) rowsDeleted.inc({ kind }, 0);
  if (opts.hubspot) for (const kind of CALL_KINDS) for (const outcome of CALL_OUTCOMES) hubspotCalls.inc({ kind, outcome }, 0);

  const observer: ServiceObserver = {
    messageSent: (kind, result) => messagesSent.labels(kind, result).inc(),
    messageFailedAfterSend: () => failedAfterSend.inc(),
    messageReceived: () => messagesReceived.inc(),
    serviceEpochChanged: () => epochChanges.inc(),
    webhookAttempt(outcome, status, durationMs) {
      webhookAttempts.labels(outcome, statusClass(status)).inc();
      webhookAttemptDuration.observe(durationMs / 1000);
    },
    webhookDelivered: (latencyMs) => deliveryLatency.observe(Math.max(0, latencyMs) / 1000),
    rowsDeleted: (kind, count) => rowsDeleted.labels(kind).inc(count),
    hubspotCall: (kind, outcome) => hubspotCalls.labels(kind, outcome).inc(),
  };

  async function lineStates(src: ScrapeSources) {
    const counts = { up: 0, down: 0, unknown: 0, inactive: 0 };
    const all = await src.store.lines.list();
    const states = await Promise.all(all.map((line) => lineState(src.drivers, line)));
    for (const s of states) counts[s]++;
    return { counts, all };
  }

  async function refresh(src: ScrapeSources) {
    sse.set(src.sseConnections());
    sseBuffered.set(src.sseBufferedBytes());
    const now = src.clock.now();
    const q = metricsQueries(src.store.database.db);
    const [{ counts, all }, tenants, touches, jobs, breakers, replies] = await Promise.all([
      lineStates(src),
      src.store.tenants.list(),
      q.firstTouchesSince(now - LOOKBACK_MS),
      q.pendingDeliveries(),
      opts.hubspot ? q.openPushBreakers() : 0,
      opts.hubspot ? q.waitingReplies() : { count: 0, oldestAt: null },
    ]);
    pushBreakers.set(breakers);
    repliesWaiting.set(replies.count);
    oldestWaitingReply.set(replies.oldestAt === null ? 0 : Math.max(0, now - replies.oldestAt) / 1000);
    for (const [state, n] of Object.entries(counts)) lines.labels(state).set(n);
    pending.set(jobs.count);
    oldestPending.set(jobs.oldestAt === null ? 0 : Math.max(0, now - jobs.oldestAt) / 1000);

    // Days are each tenant's local calendar days, as the caps count them.
    const dayStart = new Map(tenants.map((t) => [t.id, localDayStart(now, t.timezone)]));
    const perTenant = new Map<string, number>();
    const perLine = new Map<string, number>();
    for (const t of touches) {
      if (t.sent_at < (dayStart.get(t.tenant_id) ?? Infinity)) continue;
      perTenant.set(t.tenant_id, (perTenant.get(t.tenant_id) ?? 0) + 1);
      if (t.line_id) perLine.set(t.line_id, (perLine.get(t.line_id) ?? 0) + 1);
    }
    const active = tenants.filter((t) => t.status === 'active');
    ftUsed.set([...perTenant.values()].reduce((a, b) => a + b, 0));
    ftCap.set(active.reduce((a, t) => a + t.daily_first_touch_cap, 0));
    ftTenantsAtCap.set(active.filter((t) => (perTenant.get(t.id) ?? 0) >= t.daily_first_touch_cap).length);
    const sending = all.filter((l) => l.is_active && l.capabilities.includes('send'));
    ftLineCapacity.set(sending.length * FIRST_TOUCH_PER_LINE_PER_DAY);
    ftLinesAtLimit.set(sending.filter((l) => (perLine.get(l.id) ?? 0) >= FIRST_TOUCH_PER_LINE_PER_DAY).length);
  }

  return {
    observer,
    /** The recorder of one route template (see http-stats.ts). */
    httpRoute: http.route,
    /** Requests no route took: 404s, and those the router refused before routing (no hook runs for them). */
    httpUnmatched: http.route('unmatched'),
    contentType: registry.contentType,
    /** The exposition text, with the scrape-time gauges read first. */
    async scrape(src: ScrapeSources, onError?: (err: Error) => void): Promise<string> {
      try {
        await refresh(src);
        databaseRead = true;
        databaseUp.set(1);
      } catch (err) {
        scrapeErrors.inc();
        databaseUp.set(0);
        onError?.(err as Error);
      }
      return (await registry.metrics()) + (databaseRead ? await databaseRegistry.metrics() : '') + http.render();
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
