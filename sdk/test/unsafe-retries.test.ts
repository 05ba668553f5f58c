/**
 * A call that is not safe to repeat (a chat message, an edit, a reaction) and whose answer says
 * it may have acted is never repeated by the SDK, even when that answer is `retryable: true`:
 * a BlueBubbles line (a stand-in Mac) that sends the message but never answers makes the API
 * answer 503 / 3002 ("it stays `sending`: look at GET /messages/{id} before sending it again").
 * Repeating it would text the group twice (spec: do not blindly retry an ambiguous send).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Blueline, LineUnavailableError } from '@blueline/sdk';
import { startService, type Service } from './support/service.js';
import { startStandIn, type StandIn } from '../../test/drivers/bluebubbles/standin.js';

let svc: Service;
let bb: StandIn;
let client: Blueline;
let lineId: string;

beforeAll(async () => {
  svc = await startService();
  bb = await startStandIn();
  const created = await svc.admin<{ phone_line: { id: string } }>('POST', '/admin/v1/lines', {
    tenant: svc.demo.tenant,
    phone_number: '+14155550660',
    driver: 'bluebubbles',
    driver_config: bb.config({ timeout_ms: 300 }),
  });
  lineId = created.phone_line.id;
  client = new Blueline({ ...svc.options, maxRetries: 2, retryBaseDelayMs: 10 });
});
afterAll(async () => {
  await bb?.stop();
  await svc?.stop();
});

const storedWith = (text: string) => [...bb.messages.values()].filter((m) => m.text === text);

describe('a retryable answer to a call that may have acted', () => {
  it('a chat message whose line took it but never answered is not sent again', async () => {
    const opened = await client.messages.send({ phone: '+14155550661', body: 'hello', phone_line_id: lineId });
    expect(opened.phone_line_id).toBe(lineId);

    bb.inject('POST /api/v1/message/text', { storeThenHangMs: 2_000 });
    const err = await client.chats.send(opened.chat_id, { message: { parts: [{ type: 'text', value: 'only once' }] } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LineUnavailableError);
    expect(err).toMatchObject({ status: 503, code: 3002, retryable: true });
    // The API's word stands (retryable), but deciding is the caller's: the message is `sending`.
    expect((err as Error).message).toMatch(/stays `sending`/);
    // The error names the message to look at, so the caller need not parse the text.
    const messageId = (err as LineUnavailableError).messageId;
    expect(messageId).toMatch(/^msg_/);
    expect(await client.messages.get(messageId!)).toMatchObject({ id: messageId, status: 'sending' });
    expect(storedWith('only once')).toHaveLength(1);
    expect(bb.requestsTo('POST', '/api/v1/message/text').filter((r) => r.json?.message === 'only once')).toHaveLength(1);
  });

});
