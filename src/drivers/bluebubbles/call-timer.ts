/**
 * The time limits of one call to BlueBubbles, on the one AbortSignal fetch is given. Each limit is
 * a slot armed for so long and re-armed or cleared as the call moves on (the answer's wait, a file
 * body's idle and total limits: client.ts). The first to run out aborts the call and is kept, so
 * the call's error says which limit ended it.
 */
export type TimerSlot = 'wait' | 'idle' | 'total';

export class CallTimer {
  private readonly ctl = new AbortController();
  private readonly timers = new Map<TimerSlot, NodeJS.Timeout>();
  /** What ran out, in words ("did not answer GET … within 300 ms"); undefined while none has. */
  expired?: string;

  get signal(): AbortSignal {
    return this.ctl.signal;
  }

  /** In `ms` from now the call ends, saying `why`, unless the slot is armed again or cleared first. */
  arm(slot: TimerSlot, ms: number, why: string): void {
    this.clear(slot);
    if (this.expired !== undefined) return;
    const timer = setTimeout(() => this.expire(why), ms);
    // As AbortSignal.timeout: a pending limit alone does not keep the process up.
    timer.unref();
    this.timers.set(slot, timer);
  }

  /** Starts the slot's time over (bytes moved). */
  restart(slot: TimerSlot): void {
    this.timers.get(slot)?.refresh();
  }

  clear(slot: TimerSlot): void {
    const timer = this.timers.get(slot);
    if (timer) clearTimeout(timer);
    this.timers.delete(slot);
  }

  /** The call is over, however it ended: no limit runs any more. */
  end(): void {
    for (const slot of [...this.timers.keys()]) this.clear(slot);
  }

  private expire(why: string): void {
    if (this.expired !== undefined) return;
    this.expired = why;
    this.end();
    this.ctl.abort(new DOMException(why, 'TimeoutError'));
  }
}
