/**
 * Issue 16 item 3: a send is `sending` until its line answers; a service killed in between
 * settles it at the next start from the line itself — the simulator's device log, a
 * BlueBubbles Mac's own messages — to `sent` (it went out) or `failed` (it did not).
 * The sends here never get their line's answer: the simulator's recipients whose answer never
 * comes (answered 503 / 3002 at once, as a line that timed out) and a stand-in Mac holding its
 * answer (the request still under way); the process is SIGKILLed before they are settled.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SIMULATOR_RECIPIENTS } from '../../src/drivers/simulator/reserved.js';
import { startStandIn, type StandIn } from '../drivers/bluebubbles/standin.js';
import { startOn, until, type Running } from './send-crash-support.js';
import { SERVICE_TEST_MS } from '../support/server-process.js';

const dirs: string[] = [];
const running: Running[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-sends-'));
  dirs.push(d);
  return d;
};
afterAll(async () => {
  for (const r of running) await r.kill();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
const start = async (dir: string, env?: Record<string, string>) => {
  const r = await startOn(dir, env);
  running.push(r);
  return r;
};

async function chatOf(s: Running, phone: string) {
  const list = (await s.api('GET', `/api/v1/chats?q=${encodeURIComponent(phone)}`)).json;
  return list.chats.find((c: { chat: { handles: string[] } }) => c.chat.handles.includes(phone));
}

describe('a send interrupted by a crash', { timeout: SERVICE_TEST_MS }, () => {
  it('through the simulator: answered 503 and `sending` meanwhile, then `sent` if the device log has it, `failed` if not', async () => {
    const dir = tmp();
    const first = await start(dir);
    const after = SIMULATOR_RECIPIENTS.stallsAfterDevice;
    const before = SIMULATOR_RECIPIENTS.stallsBeforeDevice;
    // Both are answered at once, as sends whose line timed out: the message may have gone out.
    const answers = [
      await first.api('POST', '/api/v1/send', { phone: after, body: 'reached the device' }),
      await first.api('POST', '/api/v1/send', { phone: before, body: 'never left' }),
    ];
    for (const a of answers) {
      expect(a.status, JSON.stringify(a.json)).toBe(503);
      expect(a.json).toMatchObject({ status: 'failed', code: 3002, retryable: true, message_id: expect.stringMatching(/^msg_/) });
    }
    const [idAfter, idBefore] = answers.map((a) => a.json.message_id as string);
    // Meanwhile the status says what is known: not sent yet.
    const pending = [await chatOf(first, after), await chatOf(first, before)];
    expect(pending.map((c) => [c.last_message.id, c.last_message.status])).toEqual([[idAfter, 'sending'], [idBefore, 'sending']]);
    const one = (await first.api('GET', `/api/v1/messages/${idAfter}`)).json.message;
    expect(one).toMatchObject({ status: 'sending', direction: 'outbound' });
    expect((await first.admin('GET', `/admin/v1/lines/${pending[0].chat.phone_line_id}/simulate/sent`)).json.sent).toContainEqual(expect.objectContaining({ to: after, ref: idAfter }));
    // Killed before its reconciler's wake-up at the end of the send window (2 s after the sends).
    await first.kill();

    const second = await start(dir);
    const settled = await until(
      async () => Promise.all([idAfter, idBefore].map(async (id) => (await second.api('GET', `/api/v1/messages/${id}`)).json.message)),
      (ms) => ms.every((m) => m.status !== 'sending'),
    );
    expect(settled[0]).toMatchObject({ id: idAfter, status: 'sent' });
    expect(settled[1]).toMatchObject({ id: idBefore, status: 'failed', error_code: 4001 });
    const logs = (await Promise.all(second.demo.phone_line_ids.map(async (id) => (await second.admin('GET', `/admin/v1/lines/${id}/simulate/sent`)).json.sent))).flat();
    expect(logs.filter((e: { ref?: string }) => e.ref === idAfter)).toHaveLength(1);
    expect(logs.filter((e: { ref?: string; to?: string }) => e.ref === idBefore || e.to === before)).toHaveLength(0);
  });

  it('through BlueBubbles: the Mac is asked for our messages since; found is `sent` with its guid, missing is `failed`', async () => {
    const bb: StandIn = await startStandIn();
    try {
      const dir = tmp();
      const first = await start(dir);
      const line = await first.admin('POST', '/admin/v1/lines', {
        tenant: 'demo', phone_number: '+14155550660', driver: 'bluebubbles', driver_config: bb.config({ timeout_ms: 1500 }),
      });
      expect(line.status).toBe(201);
      const lineId = line.json.phone_line.id;
      const phone = '+14155550661';
      const opened = await first.api('POST', '/api/v1/send', { phone, body: 'hello', phone_line_id: lineId });
      expect(opened.status, JSON.stringify(opened.json)).toBe(200);

      // The Mac sends this one but its answer never comes back; the next one it never gets to.
      bb.inject('POST /api/v1/message/text', { storeThenHangMs: 10_000 });
      void first.api('POST', '/api/v1/send', { phone, body: 'went out' }).catch(() => {});
      await until(async () => bb.requestsTo('POST', '/api/v1/message/text').length, (n) => n === 2);
      bb.inject('POST /api/v1/message/text', { hangMs: 10_000 });
      void first.api('POST', '/api/v1/send', { phone, body: 'did not' }).catch(() => {});
      await until(async () => bb.requestsTo('POST', '/api/v1/message/text').length, (n) => n === 3);
      const history = (await first.api('GET', `/api/v1/chats/${opened.json.chat_id}/messages`)).json.messages;
      const byText = (t: string) => history.find((m: { parts: { value?: string }[] }) => m.parts[0]?.value === t);
      expect(byText('went out').status).toBe('sending');
      expect(byText('did not').status).toBe('sending');
      await first.kill();

      const second = await start(dir);
      const [wentOut, didNot] = await until(
        async () => Promise.all([byText('went out').id, byText('did not').id].map(async (id) => (await second.api('GET', `/api/v1/messages/${id}`)).json.message)),
        (ms) => ms.every((m) => m.status !== 'sending'),
      );
      expect(wentOut.status).toBe('sent');
      expect(didNot).toMatchObject({ status: 'failed', error_code: 4001 });
      // The reconciliation's query (the intake's catch-up queries the same route, for all chats).
      const queries = bb.requestsTo('POST', '/api/v1/message/query').map((r) => r.json);
      expect(queries).toContainEqual(expect.objectContaining({ sort: 'ASC', with: ['chat', 'attachment'] }));
      // The guid is the Mac's: a reaction to the settled message reaches the message BlueBubbles has.
      const stored = [...bb.messages.values()].find((m) => m.text === 'went out')!;
      const reacted = await second.api('POST', `/api/v1/messages/${wentOut.id}/react`, { reaction: 'like' });
      expect(reacted.status, JSON.stringify(reacted.json)).toBe(200);
      expect(bb.lastTo('POST', '/api/v1/message/react').json.selectedMessageGuid).toBe(stored.guid);
      expect([...bb.messages.values()].filter((m) => m.text === 'did not')).toHaveLength(0);
    } finally {
      await bb.stop();
    }
  });
});
