/**
 * Issue 16's crash test (a): the service, as a real process, is SIGKILLed during a burst of
 * BlueBubbles inbound webhooks, more messages reach the Mac while it is down, and after a
 * restart on the same data every one of them is exactly one message.received event.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/ports.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { StandIn } from '../drivers/bluebubbles/standin.js';

const BURST = 40;
const WHILE_DOWN = 10;

describe('a process SIGKILLed during a burst of BlueBubbles webhooks', () => {
  const procs: ServerProcess[] = [];
  let bb: StandIn | undefined;
  afterAll(async () => {
    for (const p of procs.reverse()) p.cleanup();
    await bb?.stop();
  });

  it('turns every message the Mac received, before, during and after the crash, into exactly one event', async () => {
    bb = await new StandIn().start();
    // A slow Mac: each webhook needs its message fetched, so stored webhooks queue up behind it.
    bb.messageLookupDelayMs = 40;
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = {
      BLUELINE_ALLOW_PRIVATE_NETWORKS: '1',
      PUBLIC_BASE_URL: url,
      BLUELINE_WORKER_POLL_MS: '50',
      // A killed process's claims come back after this; catch-up retries a down line this often.
      BLUELINE_INBOUND_LEASE_MS: '1500',
      BLUELINE_CATCHUP_RETRY_MS: '500',
    };
    const first = await startServerProcess({ prefix: 'blueline-inbound-crash-', port, env });
    procs.push(first);
    const demo = JSON.parse(fs.readFileSync(path.join(first.dataDir, 'demo.json'), 'utf8'));
    const admin = { authorization: `Bearer ${demo.admin_token}`, 'content-type': 'application/json' };
    const line = await fetch(`${url}/admin/v1/lines`, {
      method: 'POST', headers: admin,
      body: JSON.stringify({ tenant: demo.tenant, phone_number: '+14155550691', driver: 'bluebubbles', driver_config: bb.config() }),
    });
    expect(line.status).toBe(201);
    // The line registered its webhook and took its starting mark (the Mac holds no message yet).
    const ready = Date.now() + 5_000;
    while ((bb.webhooks.length === 0 || bb.requestsTo('POST', '/api/v1/message/query').length === 0) && Date.now() < ready) await new Promise((r) => setTimeout(r, 20));
    expect(bb.webhooks).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 300));
    const hookUrl = bb.webhooks[0]!.url;

    // The burst: BlueBubbles posts each new message once, several at a time, and never retries.
    const expected: string[] = [];
    let answered = 0;
    const posts: Promise<unknown>[] = [];
    for (let i = 0; i < BURST; i++) {
      const msg = bb.addIncoming({ from: `+1415555${String(2000 + i).padStart(4, '0')}`, text: `burst ${i}` });
      expected.push(msg.guid);
      posts.push(
        bb.post(hookUrl, bb.webhookEvent('new-message', msg.guid)).then(
          (r) => r.status === 200 && answered++,
          () => {}, // the process is gone: this webhook is lost, as BlueBubbles would lose it
        ),
      );
      if (i === BURST / 2) {
        while (answered < 15) await new Promise((r) => setTimeout(r, 5));
        first.child.kill('SIGKILL');
      }
      await new Promise((r) => setTimeout(r, 2));
    }
    const killed = first.child;
    if (killed.exitCode === null && killed.signalCode === null) await new Promise((r) => killed.once('exit', r));
    await Promise.all(posts);
    // Killed mid-batch: some webhooks were answered 200 but their messages not yet fetched.
    const fetchedBeforeKill = bb.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/api/v1/message/')).length;
    expect(answered).toBeGreaterThan(fetchedBeforeKill);

    // While it is down, more messages reach the Mac; no webhook can get through.
    for (let i = 0; i < WHILE_DOWN; i++) expected.push(bb.addIncoming({ from: '+14155552999', text: `while down ${i}` }).guid);

    const second = await startServerProcess({ prefix: 'blueline-inbound-crash-', port, env, dataDir: first.dataDir });
    procs.push(second);
    const auth = { authorization: `Bearer ${demo.signing_secret}`, 'x-service-tenant': demo.tenant };
    const received = async () => {
      const res = await fetch(`${url}/api/v1/events?limit=200&type=message.received`, { headers: auth });
      expect(res.status).toBe(200);
      return ((await res.json()) as { events: { event_id: string }[] }).events.map((e) => e.event_id.replace(/^imessage:msg:/, ''));
    };
    const deadline = Date.now() + 30_000;
    let got = await received();
    while (new Set(got).size < expected.length && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      got = await received();
    }
    // Let the intake and a catch-up pass that may still be under way finish: nothing may come twice.
    await new Promise((r) => setTimeout(r, 1_000));
    got = await received();
    expect([...got].sort()).toEqual([...expected].sort());
  }, 60_000);
});
