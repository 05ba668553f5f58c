/**
 * An upload refused before its body was read (wrong Content-Type, a Content-Length other than the
 * declared size, a slot already uploaded or expired) must not leave the client's connection
 * stuck: the refusal arrives, and the client's next request (on the same keep-alive agent, as
 * Node's and the SDK's clients do) is answered.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { prepareSandbox } from '../support/messaging.js';
import { fileBytes } from '../support/files.js';

const BODY = 3 * 1024 * 1024; // well past what socket and stream buffers hold unread

describe('an upload refused before its body is read', () => {
  let t: TestApp;
  let address: string;
  let agent: http.Agent;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    await prepareSandbox(t);
    address = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    agent?.destroy();
    await t.close();
  });

  const slot = async (size = BODY) => (await t.api('POST', '/api/v1/attachments', { filename: 'big.png', content_type: 'image/png', size_bytes: size })).json();

  /** One request on the keep-alive agent; 'stuck' when no answer comes within 5 s. */
  const send = (method: string, path: string, headers: Record<string, string>, body?: Buffer) =>
    new Promise<{ status: number | 'stuck' | string; json?: { error?: { code: number } } }>((resolve) => {
      const req = http.request(`${address}${path}`, { method, agent, headers });
      const timer = setTimeout(() => {
        req.destroy();
        resolve({ status: 'stuck' });
      }, 5_000);
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode!, json: text ? JSON.parse(text) : undefined });
        });
      });
      req.on('error', (err) => {
        clearTimeout(timer);
        resolve({ status: `error: ${err.message}` });
      });
      req.end(body);
    });

  const upload = (s: { upload_url: string; required_headers: Record<string, string> }, headers: Record<string, string> = {}, body = fileBytes('image/png', BODY)) =>
    send('PUT', new URL(s.upload_url).pathname, { ...s.required_headers, 'content-length': String(body.length), ...headers }, body);

  const cases: [string, () => Promise<{ s: { attachment_id: string; upload_url: string; required_headers: Record<string, string> }; headers?: Record<string, string> }>, number, number][] = [
    ['a Content-Type other than the declared one', async () => ({ s: await slot(), headers: { 'content-type': 'image/jpeg' } }), 400, 1002],
    ['a Content-Length other than the declared size', async () => ({ s: await slot(BODY - 1) }), 400, 1002],
    [
      'a slot already uploaded',
      async () => {
        const s = await slot();
        expect((await upload(s)).status).toBe(200);
        return { s };
      },
      409,
      1012,
    ],
    // Refused before the route runs (authentication): nothing reads the body, so Node drains it.
    ['a token for another slot', async () => ({ s: await slot(), headers: { authorization: (await slot()).required_headers.authorization } }), 401, 2004],
  ];

  it.each(cases)('%s: the refusal arrives and the next request is answered', async (_name, setup, status, code) => {
    agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const { s, headers } = await setup();
    const refused = await upload(s, headers);
    expect(refused.status).toBe(status);
    expect(refused.json?.error?.code).toBe(code);
    // The same agent (one socket at most): the next request must not wait behind the unread body.
    const next = await send('GET', `/api/v1/attachments/${s.attachment_id}`, { authorization: `Bearer ${t.demo.signing_secret}` });
    expect(next.status).toBe(200);
    agent.destroy();
  });
});
