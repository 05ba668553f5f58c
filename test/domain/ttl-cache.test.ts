/**
 * The credentials cache (and a tenant's lines) must not bring back what a rotation or a
 * suspension just cleared: a lookup that was already under way read the old truth.
 */
import { describe, expect, it } from 'vitest';
import { ttlCache } from '../../src/domain/ttl-cache.js';

function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('ttlCache', () => {
  it('keeps a loaded value for the TTL', async () => {
    const cache = ttlCache<string>(60_000);
    let loads = 0;
    const load = async () => `v${++loads}`;
    expect(await cache.get('k', load)).toBe('v1');
    expect(await cache.get('k', load)).toBe('v1');
    expect(loads).toBe(1);
  });

  it('does not keep a load that began before clear(): the next lookup reads the store again', async () => {
    const cache = ttlCache<string>(60_000);
    const before = deferred<string>();
    const inFlight = cache.get('secret', () => before.promise);
    cache.clear(); // the secret was rotated (or the tenant suspended) meanwhile
    before.resolve('old secret');
    expect(await inFlight).toBe('old secret'); // that request began before the change
    expect(await cache.get('secret', async () => 'new secret')).toBe('new secret');
  });

  it('does not keep a load that began before delete() of any key', async () => {
    const cache = ttlCache<string>(60_000);
    const before = deferred<string>();
    const inFlight = cache.get('lines', () => before.promise);
    cache.delete('lines');
    before.resolve('lines before the change');
    await inFlight;
    expect(await cache.get('lines', async () => 'lines after the change')).toBe('lines after the change');
  });

  it('keeps a load that began after the clear', async () => {
    const cache = ttlCache<string>(60_000);
    cache.clear();
    let loads = 0;
    await cache.get('k', async () => `v${++loads}`);
    await cache.get('k', async () => `v${++loads}`);
    expect(loads).toBe(1);
  });
});
