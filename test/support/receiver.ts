/** A real webhook receiver on loopback that records what arrives and answers as scripted. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Answer = number | 'timeout' | 'reset';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  at: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** answers for the next requests in order; then `fallback` */
  script(answers: Answer[], fallback?: Answer): void;
  waitFor(count: number, ms?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(fallback: Answer = 200): Promise<Receiver> {
  const received: Received[] = [];
  let queue: Answer[] = [];
  let otherwise = fallback;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks), at: Date.now() });
      const answer = queue.length ? queue.shift()! : otherwise;
      if (answer === 'timeout') return; // never answer
      if (answer === 'reset') return req.socket.destroy();
      res.writeHead(answer, { 'content-type': 'text/plain' }).end(`answer ${answer}`);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    script(answers, fb) {
      queue = [...answers];
      if (fb !== undefined) otherwise = fb;
    },
    async waitFor(count, ms = 5_000) {
      const deadline = Date.now() + ms;
      while (received.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      return received;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/**
 * A service whose webhook deliveries the test drives by hand: no background worker (call its
 * tick()), retries due at once, loopback receivers allowed, a short timeout.
 */
export const HAND_DRIVEN_DELIVERY_ENV = {
  BLUELINE_ALLOW_PRIVATE_NETWORKS: '1',
  BLUELINE_DELIVERY_WORKER: '0',
  BLUELINE_WEBHOOK_BACKOFF_MS: '0,0',
  BLUELINE_WEBHOOK_TIMEOUT_MS: '300',
};
