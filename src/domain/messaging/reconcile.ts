/**
 * Settling sends the service lost track of (issue 16 item 3). A message is recorded `sending`
 * before its line is called and marked `sent` when the line answers; a crash in between leaves
 * it `sending`. At start, and then every SWEEP_INTERVAL_MS while the service runs, each such
 * message is looked up on its line by its ref (the message id the driver got): the simulator's
 * device log tells, BlueBubbles is asked for our own messages in the chat since then.
 *
 * - Found: `sent`, with the line's guid (receipts and edits find it from then on).
 * - Found, but the line failed it (BlueBubbles: stored with an error): `failed` with 4001, and the
 *   line's guid, so it is not found again for a retry of the same content.
 * - Not found, and recorded longer ago than the line's longest send of what it carries
 *   (sendWindowMs, grown by its files' bytes: send-window.ts): `failed`
 *   with 4001 — it never left, and a retry is safe. Younger ones may still be in flight in
 *   another process on the same database: they are looked at again when their window ends.
 * - The line cannot tell now (unreachable): stays `sending`, asked again at the next sweep.
 *
 * A message failed here that carried a staged voice note gives the note back (as a send the line
 * refused does), while it could still be sent; one found `sent` keeps it used.
 *
 * A process that does get its line's answer after a sweep gave up on the message corrects it
 * to `sent` (store markSent): the line's answer is the truth.
 *
 * A send or group creation whose line's answer never came wakes the sweep for the end of its
 * window (settleAt), rather than leaving it to the next minute's sweep.
 *
 * The same sweep settles group creations a crash or a lost answer left (group-creations.ts), and
 * deletes the projects' daily first-touch counts of days long over (FIRST_TOUCH_DAYS_KEPT_MS).
 */
import type { Message, Repos, Store } from '../../store/index.js';
import type { Clock } from '../../clock.js';
import type { DriverRegistry } from '../../drivers/registry.js';
import type { SendProbe, Target } from '../../drivers/types.js';
import type { MediaSource } from './deps.js';
import { groupCreations } from './group-creations.js';
import { loadOfMessage, sendWindowEnd } from './send-window.js';
import { FIRST_TOUCH_DAYS_KEPT_MS } from './limits.js';
import { sweepPending, type OnSendSettled } from './sweep.js';
import { failUndelivered, NOT_SENT_CODE } from './undelivered.js';
import { changeAnnounced, type StatusEvents } from './status-events.js';

export const SWEEP_INTERVAL_MS = 60_000;
/** A wake-up is never sooner than this (real ms), and comes this long after the window it waits for ends. */
const MIN_DELAY_MS = 100;
const AFTER_WINDOW_MS = 50;

export interface ReconcileLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface SweepResult {
  sent: number;
  failed: number;
  /** Still `sending`: in flight elsewhere, or the line could not tell. */
  pending: number;
  /** When the earliest pending message's (or group creation's) window ends (epoch ms), if any. */
  nextAt?: number;
  /** Group creations: recorded (the line has the group), dropped (it has not), still pending (counted in `pending` too). */
  groups: { recorded: number; dropped: number; pending: number };
  /** Projects' daily first-touch counts deleted, of days begun more than FIRST_TOUCH_DAYS_KEPT_MS ago. */
  firstTouchDaysDeleted: number;
}

/** What a message carried, as its send is counted (a rich link is a text send). */
function kindOf(m: Message): 'text' | 'media' | 'voice_note' {
  if (m.parts.some((p) => p.type === 'voice_note')) return 'voice_note';
  return m.parts.some((p) => p.type === 'media') ? 'media' : 'text';
}

export function sendReconciler(deps: {
  store: Store;
  clock: Clock;
  drivers: DriverRegistry;
  /** Gives back the staged voice note of a send failed here. */
  media?: Pick<MediaSource, 'canGiveBackVoiceNote'>;
  log?: ReconcileLog;
  /** A send settled here (its own call counted nothing: the line never answered it). */
  onSettled?: OnSendSettled;
  /** Records `message.sent` or `message.failed` for a send settled here, for the projects that subscribe to them. */
  statusEvents?: StatusEvents;
}) {
  const { store, clock, drivers } = deps;
  const groups = groupCreations(deps);
  let timer: NodeJS.Timeout | undefined;
  /** When (business ms) the armed timer sweeps. */
  let timerAt: number | undefined;
  let running: Promise<SweepResult> | undefined;
  let started = false;
  let stopped = false;

  async function targetOf(m: Message): Promise<Target | undefined> {
    const chat = await store.chats.getChat(m.tenant_id, m.chat_id);
    if (!chat) return undefined;
    if (chat.is_group) return chat.chat_key ? { kind: 'group', chatKey: chat.chat_key } : undefined;
    const [handle] = await store.chats.participants(chat.id);
    return handle ? { kind: 'direct', handle } : undefined;
  }

  function probeOf(m: Message, target: Target, lineId: string): SendProbe {
    const texts: string[] = [];
    const filenames: string[] = [];
    for (const p of m.parts) {
      if (p.type === 'text') texts.push(p.value);
      else if (p.type === 'rich_link' && !m.parts.some((q) => q.type === 'text')) texts.push(p.url);
      else if (p.type === 'media' && p.filename) filenames.push(p.filename);
      // Sent under its staged file's name (voice-notes.ts resolve).
      else if (p.type === 'voice_note') filenames.push(`${p.voice_note_id}.caf`);
    }
    return {
      target,
      recordedAt: m.sent_at,
      texts,
      filenames,
      isClaimed: async (guid) => (await store.messages.byProviderGuid(lineId, guid)) !== undefined,
    };
  }

  /** It never left, or the line failed it (`guid`: the line's message, kept so no other send is taken for it). */
  async function fail(m: Message, guid?: string): Promise<boolean> {
    const failed = await failUndelivered(deps, m, (tx) => tx.messages.settleSending(m.id, { status: 'failed', error_code: NOT_SENT_CODE, ...(guid !== undefined && { provider_guid: guid }) }));
    if (failed) deps.onSettled?.(kindOf(m), 'failed');
    return failed;
  }

  /** One message: `sent`, `failed` or still pending (with when to look again). */
  async function settle(m: Message): Promise<'sent' | 'failed' | { until: number }> {
    const line = m.line_id ? await store.lines.get(m.line_id) : undefined;
    const target = line && (await targetOf(m));
    if (!line || !target) {
      // Nothing to ask: the line or the chat's address is gone, so it cannot have been sent from here since.
      return (await fail(m)) ? 'failed' : 'sent';
    }
    const driver = drivers.forLine(line);
    const found = await driver.lookupSend(m.id, probeOf(m, target, line.id));
    if (found.state === 'sent') {
      const settleSent = (repos: Repos) => repos.messages.settleSending(m.id, { status: 'sent', provider_guid: found.guid });
      if (await changeAnnounced(deps.statusEvents, store, 'message.sent', m, settleSent)) deps.onSettled?.(kindOf(m), 'sent');
      return 'sent';
    }
    if (found.state === 'failed') {
      await fail(m, found.guid);
      return 'failed';
    }
    const until = sendWindowEnd(m, driver, await loadOfMessage(store, m));
    if (found.state === 'unknown') {
      deps.log?.warn({ message_id: m.id, line_id: line.id, reason: found.reason }, 'cannot tell yet whether an interrupted send went out; asking again later');
      return { until: Math.max(until, clock.now() + SWEEP_INTERVAL_MS) };
    }
    if (clock.now() < until) return { until };
    await fail(m);
    return 'failed';
  }

  /** The rows of days long over; a failure leaves them to the next sweep and does not fail this one. */
  async function deleteOldFirstTouchDays(): Promise<number> {
    try {
      return await store.firstTouchDays.deleteBefore(clock.now() - FIRST_TOUCH_DAYS_KEPT_MS);
    } catch (err) {
      deps.log?.warn({ reason: (err as Error).message }, 'could not delete old daily first-touch counts; the next sweep tries again');
      return 0;
    }
  }

  async function sweepOnce(): Promise<SweepResult> {
    const pass = await sweepPending({
      pending: (limit) => store.messages.sending(limit),
      settle,
      failed: (m, err) => {
        deps.log?.warn({ message_id: m.id, reason: err.message }, 'could not settle an interrupted send; asking again later');
        return { until: clock.now() + SWEEP_INTERVAL_MS };
      },
      outcomes: ['sent', 'failed'] as const,
    });
    const g = await groups.sweep(SWEEP_INTERVAL_MS, deps.log);
    const nextAt = Math.min(pass.nextAt ?? Infinity, g.nextAt ?? Infinity);
    const result: SweepResult = {
      ...pass.done,
      pending: pass.pending + g.pending,
      ...(nextAt < Infinity && { nextAt }),
      groups: { recorded: g.recorded, dropped: g.dropped, pending: g.pending },
      firstTouchDaysDeleted: await deleteOldFirstTouchDays(),
    };
    if (result.sent || result.failed || g.recorded || g.dropped) deps.log?.info({ ...result }, 'settled sends and group creations interrupted by a restart');
    return result;
  }

  /**
   * Arms the timer to sweep at `at` (business ms), unless it is armed sooner already. Timers run
   * on real time and windows on the business clock: the delay is what is left of the window now
   * (at most a sweep interval), so a test clock moved later is seen at the next wake-up.
   */
  function wakeAt(at: number) {
    if (!started || stopped) return;
    const now = clock.now();
    const when = Math.min(at, now + SWEEP_INTERVAL_MS);
    if (timer && timerAt !== undefined && timerAt <= when) return;
    if (timer) clearTimeout(timer);
    timerAt = when;
    timer = setTimeout(
      () => {
        timer = timerAt = undefined;
        void run();
      },
      Math.max(MIN_DELAY_MS, when - now + AFTER_WINDOW_MS),
    );
    timer.unref();
  }

  async function run(): Promise<SweepResult | undefined> {
    // A sweep already under way may have passed over what this wake-up is for: the next one starts after it.
    if (running) await running.catch(() => undefined);
    if (stopped) return undefined;
    try {
      const r = await sweep();
      wakeAt(r.nextAt ?? clock.now() + SWEEP_INTERVAL_MS);
      return r;
    } catch (err) {
      deps.log?.warn({ reason: (err as Error).message }, 'the sweep of interrupted sends failed; trying again later');
      wakeAt(clock.now() + SWEEP_INTERVAL_MS);
      return undefined;
    }
  }

  /** One sweep at a time in this process. */
  function sweep(): Promise<SweepResult> {
    running ??= sweepOnce().finally(() => {
      running = undefined;
    });
    return running;
  }

  return {
    sweep,
    /** Sweeps now, then keeps sweeping while the service runs. */
    start(): Promise<SweepResult | undefined> {
      started = true;
      stopped = false;
      return run();
    },
    /**
     * A send or group creation whose line's answer never came can be settled at `atMs` (its
     * window's end): the sweep runs then rather than at its next round. Only while started.
     */
    settleAt(atMs: number): void {
      wakeAt(atMs);
    },
    /** No sweep starts from now on; resolves once the one under way (if any) is done. */
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = timerAt = undefined;
      await running?.catch(() => undefined);
    },
  };
}

export type SendReconciler = ReturnType<typeof sendReconciler>;
