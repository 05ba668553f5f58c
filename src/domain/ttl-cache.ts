/**
 * A small read-through cache with a real-time TTL and a size bound. Used for
 * lookups every request makes (credentials, a tenant's lines). The database
 * stays the truth: the process that changes something clears the cache at
 * once; other processes see the change within the TTL. A load already under
 * way when the cache is cleared (or its key deleted) read the old truth: its
 * caller gets it, the cache does not keep it.
 */
import { realNowMs } from '../clock.js';
import type { MaybePromise } from './maybe-promise.js';

export interface TtlCache<V> {
  /** The cached value at once while fresh; else `load()`'s, once it settles. */
  get(key: string, load: () => Promise<V>): MaybePromise<V>;
  delete(key: string): void;
  clear(): void;
}

export function ttlCache<V>(ttlMs: number, maxEntries = 10_000): TtlCache<V> {
  const entries = new Map<string, { at: number; value: V }>();
  /** Counts clears and deletes: a load that began before one of them is not kept. */
  let generation = 0;
  return {
    get(key, load) {
      const hit = entries.get(key);
      if (hit && realNowMs() - hit.at < ttlMs) return hit.value;
      const began = generation;
      return load().then((value) => {
        if (began !== generation) return value;
        if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
        entries.set(key, { at: realNowMs(), value });
        return value;
      });
    },
    delete: (key) => {
      generation++;
      entries.delete(key);
    },
    clear: () => {
      generation++;
      entries.clear();
    },
  };
}
