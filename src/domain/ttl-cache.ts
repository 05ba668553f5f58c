/**
 * A small read-through cache with a real-time TTL and a size bound. Used for
 * lookups every request makes (credentials, a tenant's lines). The database
 * stays the truth: the process that changes something clears the cache at
 * once; other processes see the change within the TTL.
 */
import { realNowMs } from '../clock.js';

export interface TtlCache<V> {
  get(key: string, load: () => Promise<V>): Promise<V>;
  delete(key: string): void;
  clear(): void;
}

export function ttlCache<V>(ttlMs: number, maxEntries = 10_000): TtlCache<V> {
  const entries = new Map<string, { at: number; value: V }>();
  return {
    async get(key, load) {
      const hit = entries.get(key);
      if (hit && realNowMs() - hit.at < ttlMs) return hit.value;
      const value = await load();
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(key, { at: realNowMs(), value });
      return value;
    },
    delete: (key) => void entries.delete(key),
    clear: () => entries.clear(),
  };
}
