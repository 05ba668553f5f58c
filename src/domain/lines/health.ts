/**
 * A line's health as the operator (and the metrics) see it: `up` or `down` as its driver tells
 * (the BlueBubbles driver asks its Mac), `unknown` when the driver has not answered within
 * LINE_CHECK_MS, `inactive` when nothing may be sent from it (turned off, no `send`, or a driver
 * this service does not have); and its messaging service's epoch, which changes when that
 * service restarts (staged voice notes for the line become void).
 */
import { DomainError } from '../../errors/registry.js';
import type { Clock } from '../../clock.js';
import type { Store, PhoneLine } from '../../store/index.js';
import type { DriverRegistry } from '../../drivers/registry.js';
import { sendsFrom } from './service.js';

/** A check may call the line's Mac; nobody waits longer than this for it. */
export const LINE_CHECK_MS = 2_000;

export type LineState = 'up' | 'down' | 'unknown' | 'inactive';

const LATE = Symbol('late');

/** `p`, or LATE when it has not settled within `ms` (real time: it waits on the network). */
async function within<T>(p: Promise<T>, ms: number): Promise<T | typeof LATE> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof LATE>((r) => (timer = setTimeout(() => r(LATE), ms)));
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The line's state (never throws: a failing check is `down`). */
export async function lineState(drivers: Pick<DriverRegistry, 'has' | 'forLine'>, line: PhoneLine, ms = LINE_CHECK_MS): Promise<LineState> {
  if (!sendsFrom(line) || !drivers.has(line.driver)) return 'inactive';
  const check = Promise.resolve()
    .then(() => drivers.forLine(line).available?.() ?? true)
    .catch(() => false);
  const up = await within(check, ms);
  return up === LATE ? 'unknown' : up ? 'up' : 'down';
}

export interface LineHealth {
  line: PhoneLine;
  state: LineState;
  /** Why it is not up, in words (null when up). */
  reason: string | null;
  serviceEpoch: string | null;
  /** Where the epoch comes from: the line's service just now, or the last one recorded. */
  epochSource: 'live' | 'recorded' | null;
  checkedAt: number;
}

const REASONS: Record<Exclude<LineState, 'up'>, (l: PhoneLine) => string> = {
  inactive: (l) => (!l.is_active ? 'the line is turned off' : !l.capabilities.includes('send') ? 'the line does not send (no `send` capability)' : `no ${l.driver} driver in this service`),
  down: () => 'its messaging service is not answering',
  unknown: () => `no answer within ${LINE_CHECK_MS / 1000} s`,
};

export function lineHealth(deps: { store: Store; clock: Clock; drivers: Pick<DriverRegistry, 'has' | 'forLine'>; checkMs?: number }) {
  const ms = deps.checkMs ?? LINE_CHECK_MS;
  /** The epoch the line's service last named. */
  const recorded = async (lineId: string) => (await deps.store.lineRuntime.serviceEpoch(lineId)) ?? null;

  return async (lineId: string): Promise<LineHealth> => {
    const line = await deps.store.lines.get(lineId);
    if (!line) throw new DomainError(2011, `phone line ${lineId} not found`);
    const state = await lineState(deps.drivers, line, ms);
    // Only a line that answers is asked for its epoch (the BlueBubbles driver then notices a
    // restart); otherwise the last recorded one is shown, without waking the line.
    let serviceEpoch: string | null = null;
    let epochSource: LineHealth['epochSource'] = null;
    if (state === 'up') {
      const live = await within(deps.drivers.forLine(line).serviceEpoch().catch((): typeof LATE => LATE), ms);
      if (live !== LATE) [serviceEpoch, epochSource] = [live, 'live'];
    }
    if (serviceEpoch === null) {
      serviceEpoch = await recorded(line.id);
      epochSource = serviceEpoch === null ? null : 'recorded';
    }
    return { line, state, reason: state === 'up' ? null : REASONS[state](line), serviceEpoch, epochSource, checkedAt: deps.clock.now() };
  };
}

export type LineHealthCheck = ReturnType<typeof lineHealth>;
