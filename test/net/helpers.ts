/** Real loopback servers for the outbound-HTTP tests. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect } from 'vitest';
import { createAddressGuard, forbiddenAddressReason, NetError, type BaseLookup } from '../../src/net/index.js';

export interface TestServer {
  port: number;
  /** Requests that reached the handler. */
  hits: number;
  /** TCP connections accepted */
  connections: number;
  url(path?: string, host?: string): string;
  close(): Promise<void>;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

async function listen(server: http.Server | https.Server, scheme: 'http' | 'https', handler: Handler): Promise<TestServer> {
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (s) => {
    state.connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const state: TestServer = {
    port: 0,
    hits: 0,
    connections: 0,
    url: (path = '/', host = '127.0.0.1') => `${scheme}://${host}:${state.port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    state.hits++;
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.port = (server.address() as AddressInfo).port;
  return state;
}

export function startHttp(handler: Handler): Promise<TestServer> {
  return listen(http.createServer(), 'http', handler);
}

export function startHttps(tls: { key: string; cert: string }, handler: Handler): Promise<TestServer> {
  return listen(https.createServer(tls), 'https', handler);
}

/** Read a request body fully. */
export function readAll(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * A throwaway self-signed certificate for localhost / 127.0.0.1, made with the openssl CLI;
 * null when openssl is not installed (the https tests then skip).
 */
export function selfSignedCert(): { key: string; cert: string } | null {
  const dir = mkdtempSync(join(tmpdir(), 'blueline-net-test-'));
  try {
    execFileSync(
      'openssl',
      [
        'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
        '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1',
        '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } catch {
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A guard for tests that must reach a loopback server while the guard is ON: 127.0.0.1 plays
 * a "public" host; every other address gets the real policy. Names in `dnsAnswers` resolve to
 * the scripted addresses (one answer list per call, the last repeating), others fail.
 */
export function loopbackAsPublicGuard(dnsAnswers: Record<string, string[][]> = {}) {
  const calls: Record<string, number> = {};
  const baseLookup: BaseLookup = (hostname, _options, callback) => {
    const script = dnsAnswers[hostname];
    if (!script) {
      const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
      err.code = 'ENOTFOUND';
      setImmediate(() => callback(err, []));
      return;
    }
    const n = (calls[hostname] = (calls[hostname] ?? 0) + 1);
    const answer = script[Math.min(n, script.length) - 1];
    setImmediate(() => callback(null, answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))));
  };
  return createAddressGuard({
    baseLookup,
    reason: (ip) => (ip === '127.0.0.1' ? null : forbiddenAddressReason(ip)),
  });
}

/** Registers an afterEach that closes every server passed to the returned `track`. */
export function serverTracker(): (s: Promise<TestServer>) => Promise<TestServer> {
  const servers: TestServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  return async (s) => {
    const server = await s;
    servers.push(server);
    return server;
  };
}

/** The NetError a promise rejects with (fails the test if it resolves or throws anything else). */
export async function netError(p: Promise<unknown>): Promise<NetError> {
  const err = await p.then(
    () => {
      throw new Error('expected a NetError');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(NetError);
  return err as NetError;
}
