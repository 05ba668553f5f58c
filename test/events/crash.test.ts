import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import type { ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { freePort } from '../support/ports.js';
import { spawnService } from '../support/server-process.js';
import { afterAll, describe, expect, it } from 'vitest';

function startServer(dataDir: string, port: number): ChildProcess {
  return spawnService(
    {
      PORT: String(port),
      DATA_DIR: dataDir,
      BLUELINE_ALLOW_PRIVATE_NETWORKS: '1',
      BLUELINE_WEBHOOK_LEASE_MS: '1500',
      BLUELINE_WEBHOOK_BACKOFF_MS: '50,100',
      // Long enough that a loaded machine (the whole suite on 2 cores) does not time out the
      // receiver's 150 ms answers three times over, which would fail an event for another reason.
      BLUELINE_WEBHOOK_TIMEOUT_MS: '10000',
    },
    ['ignore', 'ignore', 'ignore'],
  );
}

async function waitHealthy(url: string, child: ChildProcess) {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error('server exited');
    try {
      if ((await fetch(`${url}/readyz`)).ok) return;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('server did not start');
}

describe('a process killed mid-delivery', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-crash-'));
  const children: ChildProcess[] = [];
  let receiver: http.Server | undefined;
  afterAll(async () => {
    for (const c of children) c.kill('SIGKILL');
    receiver?.closeAllConnections();
    receiver?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('loses nothing: after a restart on the same data every event arrives at least once', async () => {
    // A slow receiver: it notes each delivery as it starts and answers 150 ms later.
    const arrivals: string[] = [];
    receiver = http.createServer((req, res) => {
      arrivals.push(String(req.headers['x-webhook-event-id']));
      req.resume();
      setTimeout(() => res.writeHead(200).end('ok'), 150);
    });
    await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', r));
    const rxUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const first = startServer(dataDir, port);
    children.push(first);
    await waitHealthy(url, first);
    const demo = JSON.parse(fs.readFileSync(path.join(dataDir, 'demo.json'), 'utf8'));
    const auth = { authorization: `Bearer ${demo.signing_secret}`, 'content-type': 'application/json' };
    const admin = { authorization: `Bearer ${demo.admin_token}`, 'content-type': 'application/json' };
    const sub = await fetch(`${url}/api/v1/webhook-subscriptions`, { method: 'POST', headers: auth, body: JSON.stringify({ url: rxUrl, events: ['message.received'] }) });
    expect(sub.status).toBe(201);

    const N = 40;
    const expected: string[] = [];
    for (let i = 0; i < N; i++) {
      const guid = `crash-${i}`;
      expected.push(`imessage:msg:${guid}`);
      const r = await fetch(`${url}/admin/v1/lines/${demo.phone_line_ids[0]}/simulate/inbound`, {
        method: 'POST', headers: admin, body: JSON.stringify({ from: '+14155550111', text: `m${i}`, guid }),
      });
      expect(r.status).toBe(202);
    }
    // Kill it while deliveries are under way.
    while (arrivals.length < 5) await new Promise((r) => setTimeout(r, 10));
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const beforeRestart = new Set(arrivals).size;
    expect(beforeRestart).toBeLessThan(N);

    const second = startServer(dataDir, port);
    children.push(second);
    await waitHealthy(url, second);
    const deadline = Date.now() + 20_000;
    while (new Set(arrivals).size < N && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect([...new Set(arrivals)].sort()).toEqual([...expected].sort());

    // The log agrees: every event delivered.
    type List = { count: number; events: { delivery: { status: string; attempts: unknown[] } }[] };
    const fetchList = async () => (await (await fetch(`${url}/api/v1/events?limit=200`, { headers: { ...auth, 'x-service-tenant': demo.tenant } })).json()) as List;
    let list = await fetchList();
    expect(list.count).toBe(N);
    // An event that reached the receiver just before the kill is delivered again once its lease
    // ends, and only then recorded: as long as arrivals may take on a loaded machine.
    const recorded = Date.now() + 20_000;
    while (list.events.some((e) => e.delivery.status !== 'delivered') && Date.now() < recorded) {
      await new Promise((r) => setTimeout(r, 100));
      list = await fetchList();
    }
    const undelivered = list.events.filter((e) => e.delivery.status !== 'delivered');
    expect(undelivered.map((e) => e.delivery), 'events not delivered, with their attempts').toEqual([]);
  }, 60_000);
});
