/**
 * Catch-up: BlueBubbles posts each new message once and never retries, so whatever arrived
 * while Blueline was down, restarting or unreachable is asked for. Per line a high-water mark
 * (the provider's dateCreated of the last message walked, in `inbound_cursors`) says where to
 * start; a pass asks for every message from a little before it (CATCH_UP_OVERLAP_MS, for rows
 * Messages stores late), oldest first, page by page, and reports each one not yet recorded
 * (by guid), in order, moving the mark as it goes. Only catch-up moves the mark: a webhook for
 * a newer message says nothing about older ones that may have been missed.
 *
 * When: at start and whenever a line is connected; then every `intervalMs` of the service's
 * clock (so a test moves it); while the line is down every `retryMs`, and at once when a
 * webhook shows its Mac is back. One process walks a line at a time (the cursor's lease).
 * A new line starts at the newest message its Mac holds (its floor): that one and older ones are
 * history from before the line was connected and are never imported.
 */
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Store, PhoneLine } from '../store/index.js';
import type { DriverRegistry } from '../drivers/registry.js';
import { DriverFailure } from '../drivers/types.js';
import { ingestFound, messagesSince, newestMessageDate } from '../drivers/bluebubbles/catch-up.js';
import { AttachmentNotOnMac } from '../drivers/bluebubbles/errors.js';
import { workerName } from '../jobs/claim-loop.js';

/** How far before the mark each pass looks again (messages Messages stores with an earlier date). */
export const CATCH_UP_OVERLAP_MS = 60_000;
/**
 * How long after a message was sent catch-up waits for its attachment to reach the Mac (from
 * iCloud) before it gives the message up, so one file that never comes does not hold every later
 * message of the line back for good. Webhooks are not held meanwhile.
 */
export const ATTACHMENT_WAIT_MS = 60 * 60_000;

export interface CatchUpSettings {
  intervalMs: number;
  retryMs: number;
  pageSize: number;
  leaseMs: number;
  /** how often (real time) due lines are looked for */
  pollMs: number;
}

export type PassResult = { ok: true; reported: number; walked: number } | { ok: false; reason: string } | { busy: true };

const permanent = (err: unknown) => err instanceof DriverFailure && (err.kind === 'not_found' || err.kind === 'rejected' || err.kind === 'unsupported');
const reasonOf = (err: unknown) => (err instanceof DriverFailure ? `${err.kind}: ${err.message}` : err instanceof Error ? err.message : String(err));

export function catchUp(deps: { store: Store; clock: Clock; drivers: DriverRegistry; logger?: Logger }, settings: CatchUpSettings) {
  const { store, clock, logger } = deps;
  const owner = workerName('catch-up');
  /** lines this process looks after: when each is due, whether it was last seen down */
  const lines = new Map<string, { dueAt: number; down: boolean; running?: Promise<PassResult> }>();
  let timer: NodeJS.Timeout | undefined;
  let refreshAt = 0;

  /** One pass over a line (also for tests): reports what is missing, moves the mark. */
  async function pass(line: PhoneLine): Promise<PassResult> {
    const cursor = await store.intake.claimCursor(line.id, owner, Date.now(), settings.leaseMs);
    if (!cursor) return { busy: true };
    const ctx = deps.drivers.contextFor(line);
    let finished = false;
    let reported = 0;
    let walked = 0;
    try {
      let mark = cursor.high_water_ms;
      const advance = async (to: number) => {
        if (mark !== null && to <= mark) return;
        mark = to;
        await store.intake.advanceCursor(line.id, owner, to, Date.now(), settings.leaseMs);
      };
      if (mark === null) {
        await store.intake.startCursor(line.id, owner, await newestMessageDate(ctx), clock.now());
        finished = true;
        return { ok: true, reported, walked };
      }
      const from = Math.max((cursor.floor_ms ?? -1) + 1, mark - CATCH_UP_OVERLAP_MS, 0);
      for await (const page of messagesSince(ctx, from, settings.pageSize)) {
        for (const m of page) {
          walked++;
          if (typeof m.guid === 'string' && m.guid !== '' && m.isFromMe !== true && !(await store.messages.byProviderGuid(line.id, m.guid))) {
            try {
              const out = await ingestFound(ctx, line.id, m);
              if (out.handled === 'inbound') reported++;
            } catch (err) {
              // A message that cannot be read however often we ask (its attachment is gone, or still
              // not on the Mac an hour on) must not hold every later one back; anything else stops
              // the pass before the mark passes it.
              const waitedEnough = err instanceof AttachmentNotOnMac && typeof m.dateCreated === 'number' && clock.now() - m.dateCreated > ATTACHMENT_WAIT_MS;
              if (!permanent(err) && !waitedEnough) throw err;
              logger?.warn({ line_id: line.id, guid: m.guid, reason: reasonOf(err) }, 'catch-up skipped a message it cannot read');
            }
          }
          if (typeof m.dateCreated === 'number' && m.dateCreated > 0) await advance(m.dateCreated);
        }
      }
      finished = true;
      return { ok: true, reported, walked };
    } catch (err) {
      return { ok: false, reason: reasonOf(err) };
    } finally {
      await store.intake.releaseCursor(line.id, owner, finished ? clock.now() : null).catch(() => {});
    }
  }

  async function runLine(lineId: string): Promise<void> {
    const state = lines.get(lineId);
    if (!state || state.running) return;
    const line = await store.lines.get(lineId);
    if (!line || line.driver !== 'bluebubbles' || !line.is_active) {
      lines.delete(lineId);
      return;
    }
    state.running = pass(line);
    const r = await state.running.finally(() => (state.running = undefined));
    if ('busy' in r) {
      state.dueAt = clock.now() + settings.retryMs; // another process is walking it
    } else if (r.ok) {
      if (state.down || r.reported > 0) logger?.info({ line_id: lineId, reported: r.reported, walked: r.walked }, 'BlueBubbles catch-up done');
      state.down = false;
      state.dueAt = clock.now() + settings.intervalMs;
    } else {
      if (!state.down) logger?.warn({ line_id: lineId, reason: r.reason }, 'BlueBubbles catch-up could not reach the line; will retry');
      state.down = true;
      state.dueAt = clock.now() + settings.retryMs;
    }
  }

  async function refreshLines(): Promise<void> {
    const all = await store.lines.list();
    const wanted = new Set(all.filter((l) => l.driver === 'bluebubbles' && l.is_active).map((l) => l.id));
    for (const id of wanted) if (!lines.has(id)) lines.set(id, { dueAt: clock.now(), down: false });
    for (const id of lines.keys()) if (!wanted.has(id)) lines.delete(id);
  }

  async function tick(): Promise<void> {
    if (clock.now() >= refreshAt) {
      refreshAt = clock.now() + Math.min(settings.intervalMs, settings.retryMs);
      await refreshLines().catch((err) => logger?.warn({ reason: reasonOf(err) }, 'catch-up could not list lines'));
    }
    const now = clock.now();
    await Promise.all([...lines.entries()].filter(([, s]) => !s.running && s.dueAt <= now).map(([id]) => runLine(id).catch(() => {})));
  }

  let ticking: Promise<void> | undefined;
  const schedule = () => {
    timer = setTimeout(() => {
      ticking = tick().finally(() => {
        ticking = undefined;
        if (timer) schedule();
      });
    }, settings.pollMs);
  };

  return {
    name: owner,
    pass,
    /** A line was connected or changed: catch it up now. */
    lineConnected(line: Pick<PhoneLine, 'id' | 'driver' | 'is_active'>) {
      if (line.driver !== 'bluebubbles' || !line.is_active) return void lines.delete(line.id);
      const s = lines.get(line.id);
      if (s) s.dueAt = clock.now();
      else lines.set(line.id, { dueAt: clock.now(), down: false });
    },
    /** A webhook came from the line: if it was down, its Mac is back, so catch up now. */
    webhookArrived(lineId: string) {
      const s = lines.get(lineId);
      if (s?.down) s.dueAt = clock.now();
    },
    /** Whether the line was down at its last pass, and when its next pass is due (service clock). */
    lineStatus(lineId: string): { down: boolean; dueAt: number; running: boolean } | undefined {
      const s = lines.get(lineId);
      return s && { down: s.down, dueAt: s.dueAt, running: s.running !== undefined };
    },
    /** Starts looking for due lines; every line known is due at once (a start catches up). */
    start() {
      if (timer) return;
      refreshAt = 0;
      for (const s of lines.values()) s.dueAt = clock.now();
      schedule();
    },
    async stop() {
      clearTimeout(timer);
      timer = undefined;
      await ticking;
      await Promise.all([...lines.values()].map((s) => s.running));
    },
    tick,
  };
}

export type CatchUp = ReturnType<typeof catchUp>;
