/**
 * A send under an idempotency key whose process was SIGKILLed before its outcome was settled:
 * between claiming the key and recording the outcome, or after a line whose answer never came
 * (the simulator's +15005550006/7 answer 503 / 3002 at once, as a line that timed out) left its
 * message `sending`. After a restart, once the claim's lease has passed (the test clock is moved
 * past it), a retry with the same key either runs the send (nothing had been recorded, or the
 * message never left) or answers the message the first attempt recorded, once reconciliation
 * settled it — and the line's device log shows exactly one send either way. Before leases, every
 * such retry waited 15 s and answered 409 / 1012 for six hours.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { SIMULATOR_RECIPIENTS } from '../../src/drivers/simulator/reserved.js';
import { createPgDatabase } from '../support/stores.js';
import { openSqlite } from '../../src/store/sqlite-handles.js';
import { startStandIn } from '../drivers/bluebubbles/standin.js';
import { startOn, until, type Running } from './send-crash-support.js';
import { FIRST_TOUCH_GAP_MS } from '../support/messaging.js';
import { SERVICE_TEST_MS } from '../support/server-process.js';

/** Past the claim's lease (one minute) and short of everything else (first-touch gap, six hours). */
const PAST_LEASE_MS = 2 * 60_000;

const dirs: string[] = [];
const running: Running[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const r of running) await r.kill();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  for (const c of cleanups) await c();
});

/** A data directory, and the environment for a store of `kind` (PostgreSQL: a fresh database). */
async function place(kind: 'sqlite' | 'postgres') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-idem-'));
  dirs.push(dir);
  const env: Record<string, string> = { BLUELINE_TEST_CLOCK: '1' };
  let url: string | undefined;
  if (kind === 'postgres') {
    const db = await createPgDatabase();
    cleanups.push(() => db.drop());
    env.DATABASE_URL = url = db.url;
  }
  const start = async () => {
    const r = await startOn(dir, env);
    running.push(r);
    return r;
  };
  return { start, url, dir };
}

// The sends below name their line: the demo's two lines can be created in the same millisecond,
// and then a send that names none may go out on either.
type LogEntry = { kind: string; ref?: string; text?: string; to?: string };
const deviceLog = async (s: Running, lineId: string) => (await s.admin('GET', `/admin/v1/lines/${lineId}/simulate/sent?limit=1000`)).json.sent as LogEntry[];
const sendsOf = async (s: Running, lineId: string, text: string) => (await deviceLog(s, lineId)).filter((e) => e.text === text);

/** Retries until the send answers 200 (409 / 1012 meanwhile: its outcome is being confirmed). */
async function retryUntilAnswered(s: Running, body: object) {
  return until(
    () => s.api('POST', '/api/v1/send', body),
    (r) => {
      if (r.status !== 200) expect([r.status, r.json?.code], JSON.stringify(r.json)).toEqual([409, 1012]);
      return r.status === 200;
    },
    30_000,
  );
}

describe('a send under an idempotency key interrupted by a crash', { timeout: SERVICE_TEST_MS }, () => {
  it.each(['sqlite', 'postgres'] as const)('%s: the line got it but its answer never came: the retry answers that message, sent once', async (kind) => {
    const { start } = await place(kind);
    const first = await start();
    const lineId = first.demo.phone_line_ids[0]!;
    const body = { phone: SIMULATOR_RECIPIENTS.stallsAfterDevice, body: `stalled after the device (${kind})`, idempotency_key: `crash-after-${kind}`, phone_line_id: lineId };
    // Recorded `sending`, on the device, and the line's answer never comes (503 / 3002): the process dies before it is settled.
    const answer = await first.api('POST', '/api/v1/send', body);
    expect(answer.status, JSON.stringify(answer.json)).toBe(503);
    expect(answer.json).toMatchObject({ code: 3002, retryable: true });
    expect((await sendsOf(first, lineId, body.body)).map((e) => e.ref)).toEqual([answer.json.message_id]);
    await first.kill();

    const second = await start();
    await second.admin('POST', '/admin/v1/clock/advance', { ms: PAST_LEASE_MS });
    const again = await retryUntilAnswered(second, body);
    const [onDevice] = await sendsOf(second, lineId, body.body);
    expect(again.json).toMatchObject({ status: 'sent', message_id: onDevice!.ref, message_ids: [onDevice!.ref], phone_line_id: lineId, lead_created: true });
    expect((await second.api('GET', `/api/v1/messages/${again.json.message_id}`)).json.message.status).toBe('sent');
    // Answered again from the record; the device got it once.
    const third = await second.api('POST', '/api/v1/send', body);
    expect(third.status).toBe(200);
    expect(third.json.message_id).toBe(onDevice!.ref);
    expect(await sendsOf(second, lineId, body.body)).toHaveLength(1);
  });

  it('sqlite: recorded but it never reached the line: reconciliation fails it, and the retry sends it again', async () => {
    const { start } = await place('sqlite');
    const first = await start();
    const lineId = first.demo.phone_line_ids[0]!;
    const body = { phone: SIMULATOR_RECIPIENTS.stallsBeforeDevice, body: 'stalled before the device', idempotency_key: 'crash-before-device', phone_line_id: lineId };
    // Recorded `sending`; the line's answer never comes (503 / 3002): the process dies before it is settled.
    const answer = await first.api('POST', '/api/v1/send', body);
    expect(answer.status, JSON.stringify(answer.json)).toBe(503);
    const chatId = answer.json.chat_id as string;
    expect((await first.api('GET', `/api/v1/chats/${chatId}/messages`)).json.messages.map((m: { id: string }) => m.id)).toEqual([answer.json.message_id]);
    await first.kill();

    const second = await start();
    // Past the claim's lease and the line's send window: the message never left, and is failed.
    await second.admin('POST', '/admin/v1/clock/advance', { ms: PAST_LEASE_MS });
    const failed = await until(async () => (await second.api('GET', `/api/v1/chats/${chatId}/messages`)).json.messages as { id: string; status: string }[], (ms) => ms[0]?.status === 'failed');
    // A failed first touch pins nothing: the retry is a first touch again, so it waits for the line's 10-minute gap.
    await second.admin('POST', '/admin/v1/clock/advance', { ms: FIRST_TOUCH_GAP_MS });
    // The retry sends it as a new message (to a recipient whose answer never comes again, so it stays `sending`).
    const retried = await second.api('POST', '/api/v1/send', body);
    expect(retried.status, JSON.stringify(retried.json)).toBe(503);
    const history = (await second.api('GET', `/api/v1/chats/${chatId}/messages`)).json.messages as { id: string; status: string }[];
    expect(history).toHaveLength(2);
    expect(history[0]!.id).toBe(retried.json.message_id);
    expect(history[1]!.id).toBe(failed[0]!.id);
    expect(history[0]!.id).not.toBe(failed[0]!.id);
    expect(history[0]!.status).toBe('sending');
    expect((await deviceLog(second, lineId)).filter((e) => e.text === body.body)).toHaveLength(0);
  });

  it('postgres: killed after claiming the key, before recording a message: the retry sends it, once, also when two processes race to', async () => {
    const { start, url } = await place('postgres');
    const first = await start();
    const lineId = first.demo.phone_line_ids[0]!;
    const body = { phone: '+14155550811', body: 'claimed, then killed', idempotency_key: 'crash-after-claim', phone_line_id: lineId };
    // The send is held where it reserves its first-touch line (after the claim, before its
    // message is recorded) by a transaction locking the lines' state.
    const lock = new pg.Client({ connectionString: url });
    await lock.connect();
    try {
      await lock.query('begin');
      await lock.query('lock table line_state in exclusive mode');
      let answered = false;
      void first.api('POST', '/api/v1/send', body).then(() => (answered = true), () => {});
      await until(
        async () => (await lock.query("select count(*)::int as n from idempotency_keys where key = 'crash-after-claim' and state = 'in_progress'")).rows[0].n,
        (n) => n === 1,
      );
      // pg_stat_activity is read once per transaction and kept (this one holds the lock): each look
      // clears that snapshot, or a request slower than the first look is never seen waiting.
      await until(
        async () => {
          await lock.query('select pg_stat_clear_snapshot()');
          return (await lock.query("select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'")).rows[0].n;
        },
        (n) => n > 0,
      );
      await first.kill();
      expect(answered).toBe(false);
      await lock.query('rollback');
    } finally {
      await lock.end();
    }
    // Two processes on the database now, and the client retries through both at once: one
    // takes the claim over and sends, the other answers what it sent.
    const [second, other] = await Promise.all([start(), start()]);
    expect(await sendsOf(second, lineId, body.body)).toHaveLength(0);
    for (const s of [second, other]) await s.admin('POST', '/admin/v1/clock/advance', { ms: PAST_LEASE_MS });
    const [again, racing] = await Promise.all([second.api('POST', '/api/v1/send', body), other.api('POST', '/api/v1/send', body)]);
    expect(again.status, JSON.stringify(again.json)).toBe(200);
    expect(racing.status, JSON.stringify(racing.json)).toBe(200);
    expect(racing.json.message_id).toBe(again.json.message_id);
    expect(again.json).toMatchObject({ status: 'sent', phone_line_id: lineId, lead_created: true });
    const sent = await sendsOf(second, lineId, body.body);
    expect(sent.map((e) => e.ref)).toEqual([again.json.message_id]);
    const third = await second.api('POST', '/api/v1/send', body);
    expect(third.json.message_id).toBe(again.json.message_id);
    expect(await sendsOf(second, lineId, body.body)).toHaveLength(1);
  });
  it('sqlite: killed after claiming the key, before recording a message: the retry sends it, once', async () => {
    const { start, dir } = await place('sqlite');
    const first = await start();
    const lineId = first.demo.phone_line_ids[0]!;
    const body = { phone: '+14155550812', body: 'claimed, then killed (sqlite)', idempotency_key: 'crash-after-claim-sqlite', phone_line_id: lineId };
    // The send is held where it records its message (after the claim, the lead and the chat; the
    // chat's line is pinned in the same transaction as the message) by a trigger that keeps the
    // insert busy: SQLite has no lock another connection could hold on one table only, and the
    // service must not be changed for a test. A connection of the test's own, as the PostgreSQL
    // test holds a lock, never a second Blueline process.
    const outside = openSqlite(path.join(dir, 'blueline.sqlite'), { timeout: 30_000 });
    try {
      outside.db.exec(`create trigger hold_message before insert on messages when new.parts like '%claimed, then killed (sqlite)%' begin
        select count(*) from (with recursive c(i) as (select 1 union all select i + 1 from c where i < 1e15) select i from c);
      end`);
      let answered = false;
      void first.api('POST', '/api/v1/send', body).then(() => (answered = true), () => {});
      // Committed: the claim and the person's chat. What is left is the insert of the message,
      // which stays busy until the kill: the service's one thread is held in it, and answers nothing.
      const claimed = outside.statement("select count(*) as n from idempotency_keys where key = 'crash-after-claim-sqlite' and state = 'in_progress'");
      const chats = outside.statement('select c.line_id from chats c join chat_participants p on p.chat_id = c.id where p.handle = ?');
      const held = () => fetch(`${first.url}/healthz`, { signal: AbortSignal.timeout(500) }).then(() => false, () => true);
      await until(async () => [(claimed.get() as { n: number }).n, chats.all(body.phone).length, await held()] as const, ([k, c, h]) => k === 1 && c === 1 && h);
      await first.kill();
      expect(answered).toBe(false);
      expect((outside.statement("select count(*) as n from messages where parts like '%claimed, then killed%'").get() as { n: number }).n).toBe(0);
      // The first touch's pin went with its message: the killed attempt left its chat on no line.
      expect(chats.all(body.phone)).toEqual([{ line_id: null }]);
      outside.db.exec('drop trigger hold_message');
    } finally {
      outside.db.close();
    }

    const second = await start();
    expect(await sendsOf(second, lineId, body.body)).toHaveLength(0);
    await second.admin('POST', '/admin/v1/clock/advance', { ms: PAST_LEASE_MS });
    // So the retry is a first touch again, counted as one: the line keeps the killed attempt's
    // reservation for its 10-minute gap (nothing tells it that attempt is gone), then sends it.
    const early = await second.api('POST', '/api/v1/send', body);
    expect([early.status, early.json.code], JSON.stringify(early.json)).toEqual([503, 4002]);
    // The lead is the killed attempt's: this request's own, in every answer to it.
    expect(early.json).toMatchObject({ lead_created: true, phone_line_id: lineId });
    await second.admin('POST', '/admin/v1/clock/advance', { ms: FIRST_TOUCH_GAP_MS });
    const again = await second.api('POST', '/api/v1/send', body);
    expect(again.status, JSON.stringify(again.json)).toBe(200);
    expect(again.json).toMatchObject({ status: 'sent', phone_line_id: lineId, chat_id: early.json.chat_id, lead_created: true });
    const sent = await sendsOf(second, lineId, body.body);
    expect(sent.map((e) => e.ref)).toEqual([again.json.message_id]);
    // The chat holds that one message: the killed attempt left nothing behind.
    const history = (await second.api('GET', `/api/v1/chats/${again.json.chat_id}/messages`)).json.messages as { id: string; status: string }[];
    expect(history.map((m) => [m.id, m.status])).toEqual([[again.json.message_id, 'sent']]);
    const third = await second.api('POST', '/api/v1/send', body);
    expect(third.status).toBe(200);
    expect(third.json.message_id).toBe(again.json.message_id);
    expect(await sendsOf(second, lineId, body.body)).toHaveLength(1);
  });
});

describe('a request of several messages under an idempotency key interrupted by a crash', { timeout: SERVICE_TEST_MS }, () => {
  it.each(['sqlite', 'postgres'] as const)('%s: the retry answers the message the Mac got and sends only the rest', async (kind) => {
    const bb = await startStandIn();
    try {
      const { start } = await place(kind);
      const first = await start();
      const line = await first.admin('POST', '/admin/v1/lines', {
        tenant: 'demo', phone_number: '+14155550820', driver: 'bluebubbles', driver_config: bb.config({ timeout_ms: 20_000 }),
      });
      expect(line.status, JSON.stringify(line.json)).toBe(201);
      const lineId = line.json.phone_line.id as string;
      const phone = '+14155550821';
      expect((await first.api('POST', '/api/v1/send', { phone, body: 'hello first', phone_line_id: lineId })).status).toBe(200);
      const link = 'https://example.com/agenda';
      const body = { to: [phone], message: { parts: [{ type: 'text', value: 'part one' }, { type: 'rich_link', url: link }] }, idempotency_key: `parts-${kind}` };
      const macGot = (text: string) => bb.requestsTo('POST', '/api/v1/message/text').filter((r) => r.json?.message === text);

      // The Mac stores the first message, but its answer never comes back: the process dies first.
      bb.inject('POST /api/v1/message/text', { storeThenHangMs: 20_000 });
      let answered = false;
      void first.api('POST', '/api/v1/chats', body).then(() => (answered = true), () => {});
      await until(async () => macGot('part one').length, (n) => n === 1);
      await first.kill();
      expect(answered).toBe(false);
      expect(macGot(link)).toHaveLength(0);

      const second = await start();
      await second.admin('POST', '/admin/v1/clock/advance', { ms: PAST_LEASE_MS });
      const again = await until(
        () => second.api('POST', '/api/v1/chats', body),
        (r) => {
          if (r.status !== 200) expect([r.status, r.json?.error?.code], JSON.stringify(r.json)).toEqual([409, 1012]);
          return r.status === 200;
        },
        30_000,
      );
      // 200: the chat existed before this request.
      expect(again.json.message).toMatchObject({ status: 'sent', parts: [{ type: 'rich_link', url: link }] });
      // Each part reached the Mac once: the first by the killed process, the rest by the retry.
      expect(macGot('part one')).toHaveLength(1);
      expect(macGot(link)).toHaveLength(1);
      const history = (await second.api('GET', `/api/v1/chats/${again.json.chat.id}/messages`)).json.messages as { status: string; parts: { value?: string; url?: string }[] }[];
      expect(history.map((m) => [m.parts[0]?.value ?? m.parts[0]?.url, m.status])).toEqual([
        [link, 'sent'],
        ['part one', 'sent'],
        ['hello first', 'sent'],
      ]);
      const third = await second.api('POST', '/api/v1/chats', body);
      expect(third.json.message.id).toBe(again.json.message.id);
      expect(macGot(link)).toHaveLength(1);
    } finally {
      await bb.stop();
    }
  });
});
