/**
 * On PostgreSQL events are written by concurrent transactions (other requests, other processes),
 * which commit in any order: an event can become visible after a newer one that a stream already
 * sent. The stream must still send it (delivery/sse.ts, LATE_MS), and only while its access holds.
 */
import http from 'node:http';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { prepareSandbox } from '../support/messaging.js';
import { newEventId } from '../../src/domain/ids.js';
import { LATE_MS } from '../../src/delivery/sse.js';

/** The stream's message.received payloads and its closing frame, once the server ends it. */
function readStream(base: string, secret: string, onOpen: () => void) {
  return new Promise<{ texts: string[]; close: { reconnect_with_since: string; last_event_id?: string } }>((resolve, reject) => {
    const req = http.get(`${base}/api/v1/events/stream`, { headers: { authorization: `Bearer ${secret}`, 'x-service-tenant': 'demo' } }, (res) => {
      let buf = '';
      res.on('data', (d) => (buf += d.toString()));
      res.on('end', () => {
        const frames = buf.split('\n\n').map((f) => Object.fromEntries(f.split('\n').map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()])));
        const texts = frames.filter((f) => f.event === 'message.received').map((f) => JSON.parse(f.data).payload.text);
        resolve({ texts, close: JSON.parse(frames.find((f) => f.event === 'close')!.data) });
      });
      onOpen();
    });
    req.on('error', reject);
  });
}

describe('SSE on PostgreSQL: an event that commits after a newer one', () => {
  let t: TestApp;
  let base: string;
  let client: pg.Client;
  beforeAll(async () => {
    t = await startTestApp('postgres', { BLUELINE_SSE_MAX_MS: '1500', BLUELINE_SSE_POLL_MS: '50' });
    await prepareSandbox(t);
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    client = new pg.Client({ connectionString: t.testStore.location });
    await client.connect();
  });
  afterAll(async () => {
    await client.end();
    await t.close();
  });

  /** Another process's transaction records an event at the clock's next millisecond and does not commit yet. */
  async function beginLateEvent(tenantId: string, text: string): Promise<string> {
    t.clock.advance(1);
    const at = t.clock.now();
    const id = newEventId(at);
    await client.query('begin');
    await client.query(
      `insert into events (id, tenant_id, type, event_id, lead_id, convo_id, payload, status, dev_inbox, delivered_at, created_at)
       values ($1, $2, 'message.received', $3, null, null, $4, 'failed', 0, null, $5)`,
      [id, tenantId, `imessage:msg:late-${at}`, JSON.stringify({ text }), at],
    );
    return id;
  }

  it('is sent at the next poll, and the close frame says to reconnect from far enough back to see it again', async () => {
    const tenant = (await t.testStore.store.tenants.getBySlug('demo'))!;
    let committed!: Promise<unknown>;
    const stream = readStream(base, t.demo.signing_secret, () =>
      setTimeout(async () => {
        await beginLateEvent(tenant.id, 'older, committed late');
        t.clock.advance(5);
        const newer = await t.admin('POST', `/admin/v1/lines/${t.demo.phone_line_ids[0]}/simulate/inbound`, { from: '+14155550131', text: 'newer, committed first' });
        expect(newer.statusCode).toBe(202);
        await new Promise((r) => setTimeout(r, 300)); // the stream sends the newer one and moves past it
        committed = client.query('commit');
      }, 30),
    );
    const { texts, close } = await stream;
    await committed;
    expect(texts).toEqual(['newer, committed first', 'older, committed late']);
    const newest = (await t.testStore.store.events.listEvents(tenant.id, {}, 1))[0]!;
    expect(Date.parse(close.reconnect_with_since)).toBe(newest.created_at - LATE_MS);
  });

  it('is not sent once access ended while the stream looked it up: the tenant suspended and a second gone by', async () => {
    const tenant = (await t.testStore.store.tenants.getBySlug('demo'))!;
    const events = t.testStore.store.events;
    const lookUp = events.eventIdsBetween;
    let lateId: string | undefined;
    let suspended = false;
    // The look-back's read of what came late is slow: meanwhile the tenant is suspended and a second passes.
    events.eventIdsBetween = async (...args) => {
      const ids = await lookUp.apply(events, args);
      if (lateId && ids.includes(lateId) && !suspended) {
        suspended = true;
        expect((await t.admin('PATCH', '/admin/v1/tenants/demo', { status: 'suspended' })).statusCode).toBe(200);
        t.clock.advance(1_000);
      }
      return ids;
    };
    try {
      let committed!: Promise<unknown>;
      const stream = readStream(base, t.demo.signing_secret, () =>
        setTimeout(async () => {
          const id = await beginLateEvent(tenant.id, 'late, after the suspension');
          t.clock.advance(5);
          const newer = await t.admin('POST', `/admin/v1/lines/${t.demo.phone_line_ids[0]}/simulate/inbound`, { from: '+14155550132', text: 'newer, before the suspension' });
          expect(newer.statusCode).toBe(202);
          await new Promise((r) => setTimeout(r, 300)); // the stream sends the newer one and moves past it
          lateId = id;
          committed = client.query('commit');
        }, 30),
      );
      const { texts, close } = await stream;
      await committed;
      expect(suspended).toBe(true);
      expect(texts).toEqual(['newer, before the suspension']);
      expect(close).toMatchObject({ reason: 'access_revoked' });
    } finally {
      events.eventIdsBetween = lookUp;
      expect((await t.admin('PATCH', '/admin/v1/tenants/demo', { status: 'active' })).statusCode).toBe(200);
    }
  });
});
