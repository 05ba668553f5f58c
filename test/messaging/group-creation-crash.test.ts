/**
 * A group creation interrupted by a crash: the line created the group, but the service process
 * was SIGKILLed before the group was recorded (its line's answer had not come). At the next start
 * reconciliation asks the line and records the group once — its participants and first message —
 * and a retry under the same idempotency key answers that group instead of creating another.
 * Through a stand-in BlueBubbles Mac holding its answer (the request still under way), and through
 * the simulator's +15005550007, whose answer never comes (503 / 3002 at once, as a line that timed out).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SIMULATOR_RECIPIENTS } from '../../src/drivers/simulator/reserved.js';
import { startStandIn } from '../drivers/bluebubbles/standin.js';
import { startOn, until, type Running } from './send-crash-support.js';
import { SERVICE_TEST_MS } from '../support/server-process.js';

const dirs: string[] = [];
const running: Running[] = [];
afterAll(async () => {
  for (const r of running) await r.kill();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
const start = async (dir: string) => {
  const r = await startOn(dir);
  running.push(r);
  return r;
};
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-groups-'));
  dirs.push(d);
  return d;
};

const createBody = (to: string[], key: string, lineId: string) => ({ to, message: { parts: [{ type: 'text', value: 'Kickoff' }] }, phone_line_id: lineId, idempotency_key: key });

/** The chats listed for `member` once reconciliation recorded its group. */
const recordedFor = (s: Running, member: string) =>
  until(async () => (await s.api('GET', `/api/v1/chats?q=${encodeURIComponent(member)}`)).json.chats as { chat: { id: string; handles: string[] } }[], (cs) => cs.length > 0);

/** What a restarted service must show: the group once, with its members and first message, and the retry answering it. */
async function expectRecordedOnce(s: Running, body: ReturnType<typeof createBody>) {
  const member = body.to[1]!;
  const listed = await recordedFor(s, member);
  expect(listed).toHaveLength(1);
  const again = await s.api('POST', '/api/v1/chats', body);
  expect(again.status, JSON.stringify(again.json)).toBe(201);
  const { chat, message } = again.json;
  expect(chat.id).toBe(listed[0]!.chat.id);
  expect(chat).toMatchObject({ is_group: true, phone_line_id: body.phone_line_id });
  expect([...chat.handles].sort()).toEqual([...body.to].sort());
  expect(message).toMatchObject({ chat_id: chat.id, status: 'sent', parts: [{ type: 'text', value: 'Kickoff' }] });
  const history = (await s.api('GET', `/api/v1/chats/${chat.id}/messages`)).json.messages;
  expect(history.map((m: { id: string }) => m.id)).toEqual([message.id]);
  expect((await s.api('GET', `/api/v1/chats?q=${encodeURIComponent(member)}`)).json.chats).toHaveLength(1);
  return chat as { id: string };
}

describe('a group creation interrupted by a crash', { timeout: SERVICE_TEST_MS }, () => {
  it('through BlueBubbles: the Mac created it; after the restart it is recorded once and the retry answers it', async () => {
    const bb = await startStandIn();
    try {
      const dir = tmp();
      const first = await start(dir);
      const line = await first.admin('POST', '/admin/v1/lines', {
        tenant: 'demo', phone_number: '+14155550690', driver: 'bluebubbles', driver_config: bb.config({ timeout_ms: 20_000 }),
      });
      expect(line.status, JSON.stringify(line.json)).toBe(201);
      const body = createBody(['+14155550691', '+14155550692'], 'crash-group-bb', line.json.phone_line.id);
      const groupsOnMac = () => [...bb.chats.values()].filter((c) => c.style === 43 && c.participants.includes(body.to[1]!));

      // The Mac creates the group, but its answer never comes back: the process dies first.
      bb.inject('POST /api/v1/chat/new', { storeThenHangMs: 20_000 });
      let answered = false;
      void first.api('POST', '/api/v1/chats', body).then(() => (answered = true), () => {});
      await until(async () => groupsOnMac().length, (n) => n === 1);
      await first.kill();
      expect(answered).toBe(false);

      const second = await start(dir);
      const chat = await expectRecordedOnce(second, body);
      // One group on the Mac, created once; the chat is that group.
      expect(groupsOnMac()).toHaveLength(1);
      expect(bb.requestsTo('POST', '/api/v1/chat/new')).toHaveLength(1);
      // And the next message goes into it.
      const next = await second.api('POST', `/api/v1/chats/${chat.id}/messages`, { message: { parts: [{ type: 'text', value: 'second message' }] } });
      expect(next.status, JSON.stringify(next.json)).toBe(200);
      expect(bb.lastTo('POST', '/api/v1/message/text').json.chatGuid).toBe(groupsOnMac()[0]!.guid);
    } finally {
      await bb.stop();
    }
  });

  it('through the simulator: the device log has it; after the restart it is recorded once and the retry answers it', async () => {
    const dir = tmp();
    const first = await start(dir);
    const lineId = first.demo.phone_line_ids[0]!;
    const body = createBody([SIMULATOR_RECIPIENTS.stallsAfterDevice, '+14155550694'], 'crash-group-sim', lineId);
    const created = async (s: Running) =>
      ((await s.admin('GET', `/admin/v1/lines/${lineId}/simulate/sent`)).json.sent as { kind: string; handles?: string[] }[]).filter(
        (e) => e.kind === 'create_group' && e.handles?.includes(body.to[1]!),
      );
    const answer = await first.api('POST', '/api/v1/chats', body);
    expect(answer.status, JSON.stringify(answer.json)).toBe(503);
    expect(answer.json.error).toMatchObject({ code: 3002, retryable: true });
    expect(await created(first)).toHaveLength(1);
    // Killed before its reconciler's wake-up at the end of the send window (2 s after the creation).
    await first.kill();

    const second = await start(dir);
    await expectRecordedOnce(second, body);
    expect(await created(second)).toHaveLength(1);
  });
});
