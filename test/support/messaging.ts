/** Helpers for messaging tests: fast simulator receipts, lifted limits, first touches. */
import { expect } from 'vitest';
import type { TestApp } from './app.js';
import { fileBytes } from './files.js';

export const FIRST_TOUCH_GAP_MS = 10 * 60_000;

const DAY_MS = 86_400_000;
/** Moves the test clock to the next noon, UTC: a test that counts per day then never crosses a midnight. */
export function moveToNextNoonUtc(clock: TestApp['clock']): void {
  const now = clock.now();
  clock.advance(DAY_MS - (now % DAY_MS) + DAY_MS / 2);
}

/** Simulator receipts after `ms`, and a rate limit high enough not to interfere. */
export async function prepareSandbox(t: TestApp, opts: { receiptDelayMs?: number; rate?: { per_second: number; burst: number } } = {}) {
  for (const id of t.demo.phone_line_ids) {
    const res = await t.admin('PATCH', `/admin/v1/lines/${id}`, { driver_config: { receipt_delay_ms: opts.receiptDelayMs ?? 5 } });
    expect(res.statusCode).toBe(200);
  }
  await t.admin('PATCH', '/admin/v1/tenants/demo', { rate_limit: opts.rate ?? { per_second: 10_000, burst: 10_000 } });
}

let counter = 0;
/** A recipient the tenant has never talked to. */
export const newRecipient = () => `+1415555${String(1000 + (counter++ % 9000)).padStart(4, '0')}`;

/** Sends a first touch after moving the clock past every line's 10-minute gap. */
export async function firstTouch(t: TestApp, body: Record<string, unknown>) {
  t.clock.advance(FIRST_TOUCH_GAP_MS + 1_000);
  return t.api('POST', '/api/v1/send', body);
}

export async function deviceLog(t: TestApp, lineId: string): Promise<Record<string, unknown>[]> {
  const res = await t.admin('GET', `/admin/v1/lines/${lineId}/simulate/sent`);
  expect(res.statusCode).toBe(200);
  return res.json().sent;
}

export async function allDeviceLogs(t: TestApp) {
  return (await Promise.all(t.demo.phone_line_ids.map((id) => deviceLog(t, id)))).flat();
}

/**
 * Polls until `check` passes (receipts arrive on real timers) and returns the value; after `ms`
 * it returns the last value, for the caller's assertion to fail on. It returns as soon as the
 * check passes, so the deadline is for a loaded 2-core machine, not a latency budget; a test
 * that must show something does NOT happen waits a fixed time instead of using this.
 */
export async function eventually<T>(fn: () => Promise<T>, check: (v: T) => boolean, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (check(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A small PNG attachment uploaded through the API (create the slot, PUT the bytes): its id. */
export function uploadedImage(t: TestApp, filename: string): Promise<string> {
  return uploadedFile(t, filename, 'image/png');
}

/** A file of `contentType` (and `size` bytes, else the type's sample) uploaded through the API: its id. */
export async function uploadedFile(t: TestApp, filename: string, contentType: string, size?: number): Promise<string> {
  const bytes = fileBytes(contentType, size);
  const slot = (await t.api('POST', '/api/v1/attachments', { filename, content_type: contentType, size_bytes: bytes.length })).json();
  const put = await t.request({
    method: 'PUT',
    url: `/api/v1/attachments/${slot.attachment_id}/upload`,
    payload: bytes,
    headers: { authorization: `Bearer ${t.demo.signing_secret}`, 'content-type': contentType },
  });
  expect(put.statusCode, put.body).toBe(200);
  return slot.attachment_id;
}
