/**
 * A download whose stored bytes cannot be read (the file gone from the disk, the bucket out of
 * reach) is the standard error envelope, logged with its request. It was a 500 whose body was
 * `{}` under headers already naming the file (`Content-Disposition: attachment; filename=…`), so
 * a browser or `curl -J` saved a two-byte "photo.png".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { startS3, type TestS3 } from '../support/s3.js';
import { fileBytes } from '../support/files.js';

async function uploaded(t: TestApp): Promise<{ id: string; blobKey: string }> {
  const bytes = fileBytes('image/png', 4096);
  const slot = await t.api('POST', '/api/v1/attachments', { filename: 'photo.png', content_type: 'image/png', size_bytes: bytes.length });
  const id = slot.json().attachment_id as string;
  const put = await t.request({
    method: 'PUT',
    url: `/api/v1/attachments/${id}/upload`,
    headers: { authorization: `Bearer ${t.demo.signing_secret}`, 'content-type': 'image/png' },
    payload: bytes,
  });
  expect(put.statusCode, put.body).toBe(200);
  expect((await t.api('GET', `/api/v1/attachments/${id}/content`)).statusCode).toBe(200);
  const row = await t.testStore.store.media.getAttachmentById(id);
  return { id, blobKey: row!.blob_key };
}

async function expectEnvelope(t: TestApp, id: string) {
  for (const range of [undefined, 'bytes=0-99']) {
    const res = await t.request({
      method: 'GET',
      url: `/api/v1/attachments/${id}/content`,
      headers: { authorization: `Bearer ${t.demo.signing_secret}`, ...(range && { range }) },
    });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toMatchObject({ success: false, error: { status: 500, code: 3001, retryable: true }, trace_id: expect.any(String) });
    expect(res.headers['content-disposition']).toBeUndefined();
    expect(res.headers['content-range']).toBeUndefined();
    // Logged as a failed request, so an operator sees which download failed.
    expect(t.logs.some((l) => l.includes(res.json().trace_id) && l.includes(`/api/v1/attachments/${id}/content`))).toBe(true);
  }
}

describe('a download whose stored bytes cannot be read', () => {
  it('on the filesystem (the file removed): the error envelope, no file headers', async () => {
    const t = await startTestApp('sqlite');
    try {
      const { id, blobKey } = await uploaded(t);
      await t.blobs.delete(blobKey);
      await expectEnvelope(t, id);
    } finally {
      await t.close();
    }
  });

  describe('in a bucket', () => {
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

    it('the object deleted, then the bucket out of reach: the error envelope, no file headers', async () => {
      const gone = await uploaded(t);
      await t.blobs.delete(gone.blobKey);
      await expectEnvelope(t, gone.id);
      const { id } = await uploaded(t);
      await s3.close();
      await expectEnvelope(t, id);
    });
  });
});
