/**
 * Issue 16 crash test (b): SIGKILL the service during a burst of sends, start it again, and
 * every send is either `sent` and on the device (its log) or `failed` and not on it — none
 * stays `sending`, none is called sent that the device never got, and every answer the
 * clients did get before the kill still holds.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startOn, until, type Running } from './send-crash-support.js';
import { SERVICE_TEST_MS } from '../support/server-process.js';

describe('SIGKILL during a burst of sends', { timeout: SERVICE_TEST_MS }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-burst-'));
  const running: Running[] = [];
  afterAll(async () => {
    for (const r of running) await r.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('leaves every send sent-and-on-the-device or failed-and-not', async () => {
    const first = await startOn(dir);
    running.push(first);
    await first.admin('PATCH', '/admin/v1/tenants/demo', { rate_limit: { per_second: 10_000, burst: 10_000 } });
    const phone = '+14155550670';
    const opened = await first.api('POST', '/api/v1/send', { phone, body: 'burst start' });
    expect(opened.status).toBe(200);
    const { chat_id: chatId, phone_line_id: lineId } = opened.json;

    // The device log the admin route shows holds the latest 200 entries: the burst stays under that.
    const N = 150;
    // 50 in flight at a time, each answer letting the next one go: killed as the third answer
    // arrives, with up to 50 under way and the rest never sent. (All 150 at once let a server
    // that outran a busy test process answer every one before the kill.)
    const IN_FLIGHT = 50;
    const answered = new Map<string, string>();
    let next = 0;
    const client = async () => {
      while (next < N && answered.size < 3) {
        const i = next++;
        await first.api('POST', '/api/v1/send', { phone, body: `burst ${i}` }).then(
          (r) => {
            if (r.status !== 200) return;
            answered.set(`burst ${i}`, r.json.message_id);
            if (answered.size === 3) first.child.kill('SIGKILL');
          },
          () => undefined,
        );
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, client));
    await first.kill();
    expect(answered.size).toBeGreaterThanOrEqual(3);
    expect(answered.size).toBeLessThan(3 + IN_FLIGHT);

    const second = await startOn(dir);
    running.push(second);
    const history = await until(
      async () => (await second.api('GET', `/api/v1/chats/${chatId}/messages?limit=200`)).json.messages as { id: string; status: string; parts: { value?: string }[]; error_code?: number }[],
      (ms) => ms.every((m) => m.status !== 'sending'),
    );
    const burst = history.filter((m) => m.parts[0]?.value?.startsWith('burst '));
    const log = (await second.admin('GET', `/admin/v1/lines/${lineId}/simulate/sent`)).json.sent as { ref?: string; text?: string }[];
    const onDevice = new Map(log.filter((e) => e.text?.startsWith('burst ')).map((e) => [e.ref, e.text]));

    let sent = 0;
    let failed = 0;
    for (const m of burst) {
      if (m.status === 'failed') {
        failed++;
        expect(onDevice.has(m.id), `${m.id} failed but the device has it`).toBe(false);
        expect(m.error_code).toBe(4001);
      } else {
        sent++;
        expect(['sent', 'delivered', 'read']).toContain(m.status);
        expect(onDevice.get(m.id), `${m.id} is ${m.status} but not on the device`).toBe(m.parts[0]!.value);
      }
    }
    // Nothing reached the device that the service does not call sent.
    for (const ref of onDevice.keys()) expect(burst.find((m) => m.id === ref)?.status).not.toBe('failed');
    expect(onDevice.size).toBe(sent);
    // What the clients were told before the kill still holds.
    for (const [text, id] of answered) expect(burst.find((m) => m.id === id)?.parts[0]?.value).toBe(text);
    for (const id of answered.values()) expect(burst.find((m) => m.id === id)?.status).not.toBe('failed');
    expect(sent + failed).toBe(burst.length);
    console.log(`burst: ${N} requests, ${answered.size} answered before the kill, ${burst.length} recorded: ${sent} sent, ${failed} failed`);
  });
});
