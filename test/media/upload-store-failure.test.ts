/**
 * An upload that our storage fails (the bucket unreachable) is our failure, not the client's:
 * 3001, retryable, logged; a client that stops sending is still 1002. (It was 1002 "the upload
 * was interrupted", not retryable, for both.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { startS3, type TestS3 } from '../support/s3.js';
import { fileBytes } from '../support/files.js';

describe('an upload the blob store fails', () => {
  let s3: TestS3;
  let t: TestApp;
  beforeAll(async () => {
    s3 = await startS3();
    t = await startTestApp('sqlite', s3.env);
  });
  afterAll(async () => {
    await t.close();
    await s3.close().catch(() => {});
  });

  const slot = async (size: number) => {
    const res = await t.api('POST', '/api/v1/attachments', { filename: 'photo.png', content_type: 'image/png', size_bytes: size });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().attachment_id as string;
  };
  const upload = (id: string, bytes: Buffer) =>
    t.request({
      method: 'PUT',
      url: `/api/v1/attachments/${id}/upload`,
      headers: { authorization: `Bearer ${t.demo.signing_secret}`, 'content-type': 'image/png', 'content-length': String(bytes.length) },
      payload: bytes,
    });

  it('answers 3001 (500, retryable) and logs why, without the store credentials; the slot stays open for the retry', async () => {
    const bytes = fileBytes('image/png', 4096);
    const id = await slot(bytes.length);
    expect((await upload(id, bytes)).statusCode).toBe(200); // the store works

    const next = await slot(bytes.length);
    await s3.close(); // the bucket's server goes away
    const failed = await upload(next, bytes);
    expect(failed.statusCode).toBe(500);
    expect(failed.json().error).toMatchObject({ code: 3001, retryable: true });
    const logged = t.logs.filter((l) => l.includes('the blob store failed the write'));
    expect(logged.length).toBeGreaterThan(0);
    for (const line of logged) expect(line).not.toContain(s3.env.AWS_SECRET_ACCESS_KEY!);
    // The slot is still open: nothing was recorded against it.
    expect((await t.api('GET', `/api/v1/attachments/${next}`)).json().attachment).toMatchObject({ attachment_id: next, uploaded_at: null });
  });
});
