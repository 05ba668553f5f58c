/**
 * Transcoding a 300 s WAV takes a few seconds of CPU. The service runs it on
 * the main event loop (no worker pool yet), so long loops call the function
 * returned here between blocks: it hands control back to the loop at most
 * every `sliceMs`, which keeps other requests flowing while costing nothing
 * measurable (one setImmediate per ~10 ms of work).
 */
import { setImmediate as nextTick } from 'node:timers/promises';

export type Yielder = () => Promise<void> | void;

export function cooperativeYielder(sliceMs = 10): Yielder {
  let last = performance.now();
  return () => {
    const now = performance.now();
    if (now - last < sliceMs) return;
    return nextTick().then(() => {
      last = performance.now();
    });
  };
}
