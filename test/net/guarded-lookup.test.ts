import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { createAddressGuard, NetError, type BaseLookup } from '../../src/net/index.js';

function scripted(answers: Record<string, LookupAddress[]>): BaseLookup {
  return (hostname, options, callback) => {
    expect(options.all).toBe(true); // the guard always asks for every address
    const list = answers[hostname];
    if (!list) {
      const err: NodeJS.ErrnoException = new Error('not found');
      err.code = 'ENOTFOUND';
      callback(err, []);
    } else callback(null, list);
  };
}

function run(lookup: ReturnType<typeof createAddressGuard>['lookup'], host: string, all: boolean) {
  return new Promise<{ err: unknown; address: unknown; family: unknown }>((resolve) => {
    lookup(host, { all }, (err, address, family) => resolve({ err, address, family }));
  });
}

describe('createAddressGuard().lookup', () => {
  const guard = createAddressGuard({
    baseLookup: scripted({
      'public.example': [
        { address: '93.184.215.14', family: 4 },
        { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
      ],
      'mixed.example': [
        { address: '93.184.215.14', family: 4 },
        { address: '10.0.0.7', family: 4 },
      ],
      'mapped.example': [{ address: '::ffff:127.0.0.1', family: 6 }],
      'empty.example': [],
    }),
  });

  it('passes public answers through in both calling conventions', async () => {
    const one = await run(guard.lookup, 'public.example', false);
    expect(one).toEqual({ err: null, address: '93.184.215.14', family: 4 });
    const all = await run(guard.lookup, 'public.example', true);
    expect(all.err).toBeNull();
    expect(all.address).toHaveLength(2);
  });

  it('refuses a name when any of its addresses is non-public', async () => {
    const r = await run(guard.lookup, 'mixed.example', true);
    expect(r.err).toBeInstanceOf(NetError);
    expect((r.err as NetError).kind).toBe('forbidden_address');
    expect((r.err as NetError).message).toMatch(/mixed\.example resolves to 10\.0\.0\.7: private/);
  });

  it('refuses an IPv4-mapped loopback answer', async () => {
    const r = await run(guard.lookup, 'mapped.example', false);
    expect((r.err as NetError).kind).toBe('forbidden_address');
  });

  it('passes resolver errors through and treats an empty answer as not found', async () => {
    expect(((await run(guard.lookup, 'nope.example', false)).err as NodeJS.ErrnoException).code).toBe('ENOTFOUND');
    expect(((await run(guard.lookup, 'empty.example', true)).err as NodeJS.ErrnoException).code).toBe('ENOTFOUND');
  });
});
