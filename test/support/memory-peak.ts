/**
 * For the memory tests' child processes: the process's memory before `work` (after a collection,
 * when run with --expose-gc) and its peak while `work` runs, sampled every 5 ms.
 */
const KEYS = ['rss', 'heapUsed', 'external', 'arrayBuffers'] as const;

export interface MemoryPeak<T> {
  result: T;
  baselineRss: number;
  peakRss: number;
  /** peak minus baseline, for each figure */
  growth: Record<(typeof KEYS)[number], number>;
}

export async function memoryPeak<T>(work: () => Promise<T>): Promise<MemoryPeak<T>> {
  global.gc?.();
  const base = process.memoryUsage();
  const peak = { ...base };
  const sample = () => {
    const now = process.memoryUsage();
    for (const k of KEYS) peak[k] = Math.max(peak[k], now[k]);
  };
  const sampler = setInterval(sample, 5);
  let result: T;
  try {
    result = await work();
  } finally {
    clearInterval(sampler);
  }
  sample();
  const growth = Object.fromEntries(KEYS.map((k) => [k, peak[k] - base[k]])) as MemoryPeak<T>['growth'];
  return { result, baselineRss: base.rss, peakRss: peak.rss, growth };
}
