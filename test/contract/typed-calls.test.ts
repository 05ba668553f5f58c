/**
 * Requests typed by the contract (support/contract.ts): a test that sends a shape the
 * operation does not take fails to compile, and every answer is checked against the schema
 * the operation declares for its status, errors included.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { call } from '../support/contract.js';
import { firstTouch, prepareSandbox } from '../support/messaging.js';
import { sendMessage } from '../../src/contract/messages-send.js';
import { getMessage } from '../../src/contract/messages-get.js';
import { listEvents } from '../../src/contract/events-list.js';

describe('typed calls', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    await prepareSandbox(t);
  });
  afterAll(async () => t.close());

  it('sends, then reads the message back, each answer typed and checked against its schema', async () => {
    t.clock.advance(11 * 60_000);
    const sent = await call(t, sendMessage, { body: { phone: '+14155550180', body: 'typed hello', effect: 'confetti' } });
    expect(sent.status).toBe(200);
    const id: string = sent.data.message_id;
    const got = await call(t, getMessage, { params: { id } });
    expect(got.data.message.parts[0]).toMatchObject({ type: 'text', value: 'typed hello' });
  });

  it("checks failures against the operation's declared error schemas (the flat send shape here)", async () => {
    const refused = await call(t, sendMessage, { body: { phone: '+14155550181', body: 'x', effect: 'sparkle' } });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ status: 'failed', code: 4098 });
    const unknown = await call(t, getMessage, { params: { id: 'msg_unknown' } });
    expect(unknown.json.error).toMatchObject({ code: 2003, status: 404 });
  });

  it('types the query as well', async () => {
    await firstTouch(t, { phone: '+14155550182', body: 'x' });
    const page = await call(t, listEvents, { query: { limit: 5 }, tenant: t.demo.tenant });
    expect(page.status).toBe(200);
    expect(Array.isArray(page.data.events)).toBe(true);
  });

  it('refuses, at compile time, a request the operation does not take', () => {
    // Never sent: the point is that tsc (npm test type-checks) rejects each line.
    const wrongShapes = () => [
      // @ts-expect-error `phone` is required by POST /api/v1/send
      call(t, sendMessage, { body: { body: 'no recipient' } }),
      // @ts-expect-error `to` belongs to POST /api/v1/chats, not /send
      call(t, sendMessage, { body: { to: '+14155550100', body: 'x' } }),
      // @ts-expect-error GET /api/v1/messages/{id} needs its path parameter
      call(t, getMessage, {}),
    ];
    expect(typeof wrongShapes).toBe('function');
  });
});
