/**
 * A TCP port free on loopback right now, for a server a test or bench starts itself.
 *
 * Chosen below the kernel's ephemeral range: the caller closes the port and a child process
 * binds it a second or two later, and in that gap a port from the ephemeral range can be handed
 * to another test file's `listen(0)` or outgoing connection (seen: one file's readiness poll
 * reached another file's stand-in). Ports below the range are never handed out that way.
 */
import fs from 'node:fs';
import net from 'node:net';

const LOWEST = 10_000;

function ephemeralStart(): number {
  try {
    const low = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > LOWEST + 1_000 ? low : 32_768;
  } catch {
    return 32_768; // Linux's default; elsewhere the fallback below still finds a free port
  }
}

function tryListen(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(undefined));
    srv.listen(port, '127.0.0.1', () => {
      const { port: bound } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(bound));
    });
  });
}

export async function freePort(): Promise<number> {
  const end = ephemeralStart();
  for (let i = 0; i < 50; i++) {
    const port = await tryListen(LOWEST + Math.floor(Math.random() * (end - LOWEST)));
    if (port !== undefined) return port;
  }
  const any = await tryListen(0);
  if (any === undefined) throw new Error('no free port on 127.0.0.1');
  return any;
}
