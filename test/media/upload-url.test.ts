/**
 * `upload_url` comes from configuration alone: PUBLIC_BASE_URL, else the listen
 * address. A client's Host header never decides where others upload to.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';

describe('upload_url without PUBLIC_BASE_URL', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  /** A slot asked for with a forged Host header. */
  async function uploadUrl(env: Record<string, string>) {
    t = await startTestApp('sqlite', env);
    const res = await t.request({
      method: 'POST',
      url: '/api/v1/attachments',
      headers: { authorization: `Bearer ${t.demo.signing_secret}`, host: 'evil.example' },
      payload: { filename: 'a.png', content_type: 'image/png', size_bytes: 10 },
    });
    expect(res.statusCode, res.body).toBe(200);
    const { upload_url, attachment_id } = res.json();
    expect(upload_url).not.toContain('evil.example');
    return { url: upload_url as string, path: `/api/v1/attachments/${attachment_id}/upload` };
  }

  it('is the default listen address, whatever Host the client sends', async () => {
    const { url, path } = await uploadUrl({});
    expect(url).toBe(`http://127.0.0.1:8787${path}`);
  });

  it('is the configured HOST and PORT', async () => {
    const { url, path } = await uploadUrl({ HOST: 'blueline.internal', PORT: '9120' });
    expect(url).toBe(`http://blueline.internal:9120${path}`);
  });

  it('stands loopback in for a wildcard listen address (0.0.0.0, ::)', async () => {
    const v4 = await uploadUrl({ HOST: '0.0.0.0', PORT: '9121' });
    expect(v4.url).toBe(`http://127.0.0.1:9121${v4.path}`);
    await t!.close();
    t = undefined;
    const v6 = await uploadUrl({ HOST: '::', PORT: '9122' });
    expect(v6.url).toBe(`http://[::1]:9122${v6.path}`);
  });

  it('is PUBLIC_BASE_URL when set', async () => {
    const { url, path } = await uploadUrl({ PUBLIC_BASE_URL: 'https://media.example.test/', HOST: '0.0.0.0' });
    expect(url).toBe(`https://media.example.test${path}`);
  });
});
