/**
 * A real HTTP proxy on loopback between the SDK and the service that misbehaves on cue, the way
 * networks and load balancers do: it can lose an answer after the service processed the request,
 * cut a connection before forwarding, or answer 503 itself.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault =
  | 'pass'
  /** Forward, let the service answer, then drop the client's connection: an ambiguous failure. */
  | 'lose-answer'
  /** Drop the connection without forwarding. */
  | 'reset'
  /** Forward, send the answer's headers and part of a streamed body, then drop (SSE). */
  | { cutAfterMs: number }
  /** Forward a streamed answer for a while, then pass nothing more and keep the connection open (a silent NAT drop). */
  | { stallAfterMs: number }
  | { status: number; headers?: Record<string, string>; body?: string };

export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  fault: Fault;
}

export interface FaultProxy {
  url: string;
  seen: SeenRequest[];
  /** Faults for the next requests (matching `match`, default all), in order; then 'pass'. */
  plan(faults: Fault[], match?: (method: string, url: string) => boolean): void;
  close(): Promise<void>;
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  let queue: Fault[] = [];
  let matcher: (method: string, url: string) => boolean = () => true;
  const seen: SeenRequest[] = [];
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const fault: Fault = matcher(req.method!, req.url!) && queue.length ? queue.shift()! : 'pass';
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: body.toString('utf8'), fault });
      if (fault === 'reset') return req.socket.destroy();
      if (typeof fault === 'object' && 'status' in fault) {
        res.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers }).end(fault.body ?? '');
        return;
      }
      const headers = { ...req.headers, host: upstream.host };
      const out = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (up) => {
        if (fault === 'lose-answer') {
          up.resume();
          up.on('end', () => req.socket.destroy());
          return;
        }
        res.writeHead(up.statusCode!, up.headers);
        up.pipe(res);
        if (typeof fault === 'object' && 'cutAfterMs' in fault) {
          setTimeout(() => {
            up.destroy();
            req.socket.destroy();
          }, fault.cutAfterMs);
        }
        if (typeof fault === 'object' && 'stallAfterMs' in fault) {
          setTimeout(() => {
            up.unpipe(res);
            up.destroy();
          }, fault.stallAfterMs);
        }
      });
      out.on('error', () => req.socket.destroy());
      out.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    plan(faults, match) {
      queue = [...faults];
      matcher = match ?? (() => true);
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
