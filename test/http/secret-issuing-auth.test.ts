/**
 * The rotations whose answer is a secret (POST /api/v1/signing-secret/rotate, POST
 * /api/v1/webhook-subscriptions/{id}/rotate-secret) take the signing secret as a bearer or a
 * console session, never an HMAC signature: the signed string `<ts>.<body>` names no route, so a
 * signature copied from a log (any bodiless GET's) would otherwise be replayed within its 300 s to
 * be issued a secret. Every other route still takes HMAC, subscription creation (the spec's
 * route) included: a signature replayed there brings only the body it signed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest, startTestApp, type TestApp } from '../support/app.js';
import { STORE_KINDS } from '../support/stores.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

describe.each(STORE_KINDS)('secret-issuing routes and request signatures (%s)', (kind) => {
  let t: TestApp;
  let rx: Receiver;
  beforeAll(async () => {
    t = await startTestApp(kind, { BLUELINE_ALLOW_PRIVATE_NETWORKS: '1', BLUELINE_DELIVERY_WORKER: '0' });
    rx = await startReceiver();
  });
  afterAll(async () => {
    await rx?.close();
    await t?.close();
  });

  /** A request carrying `signature` (one a client made for some other request), as an attacker replays it. */
  const replay = (method: 'GET' | 'POST' | 'PATCH', url: string, signature: string, body?: string, tenant = true) =>
    t.request({
      method,
      url,
      headers: { 'x-service-signature': signature, ...(tenant && { 'x-service-tenant': t.demo.tenant }), ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { payload: body }),
    });
  const refused = (res: Awaited<ReturnType<typeof replay>>) => {
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toMatchObject({ code: 2004, retryable: false });
    expect(res.json().error.message).toMatch(/Bearer/);
    expect(res.body).not.toMatch(/bl_sk_|whsec_/);
  };

  it("a signature from a bodiless GET, replayed onto the signing secret's rotation, issues nothing", async () => {
    const signature = signRequest(t.demo.signing_secret, '');
    // The client's own GET: signed, and taken.
    expect((await replay('GET', '/api/v1/signing-secret', signature)).statusCode).toBe(200);
    refused(await replay('POST', '/api/v1/signing-secret/rotate', signature));
    refused(await replay('POST', '/api/v1/signing-secret/rotate', signature, undefined, false));
    // Even signed for exactly this body, the rotation takes no signature.
    const body = JSON.stringify({ overlap_hours: 0 });
    refused(await replay('POST', '/api/v1/signing-secret/rotate', signRequest(t.demo.signing_secret, body), body));
    // Nothing was rotated: the secret works, and has never been replaced.
    expect((await t.api('GET', '/api/v1/signing-secret')).json().signing_secret).toMatchObject({ rotated_at: null, previous_secrets: [] });
  });

  it("subscription creation, the spec's route, takes HMAC: a replayed signature brings only the body it signed", async () => {
    const body = JSON.stringify({ url: `${rx.url}/signed`, events: ['message.received'] });
    const created = await replay('POST', '/api/v1/webhook-subscriptions', signRequest(t.demo.signing_secret, body), body);
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ url: `${rx.url}/signed`, secret: expect.stringMatching(/^whsec_/) });
    // A bodiless GET's signature makes no subscription: the creation needs its url and events.
    const signature = signRequest(t.demo.signing_secret, '');
    expect((await replay('GET', '/api/v1/signing-secret', signature)).statusCode).toBe(200);
    const bodiless = await replay('POST', '/api/v1/webhook-subscriptions', signature);
    expect(bodiless.statusCode).toBe(400);
    expect(bodiless.body).not.toMatch(/whsec_/);
    // Another URL under that signature is not the body it signed.
    const elsewhere = JSON.stringify({ url: 'https://attacker.example/hook', events: ['message.received'] });
    expect((await replay('POST', '/api/v1/webhook-subscriptions', signRequest(t.demo.signing_secret, body), elsewhere)).json().error.code).toBe(2004);
    await t.api('DELETE', `/api/v1/webhook-subscriptions/${created.json().id}`);
  });

  it("a signature replayed onto a subscription's secret rotation rotates nothing: deliveries are signed by the one secret", async () => {
    const created = (await t.api('POST', '/api/v1/webhook-subscriptions', { url: `${rx.url}/rotation`, events: ['message.received'] })).json();
    const signature = signRequest(t.demo.signing_secret, '');
    expect((await replay('GET', '/api/v1/events', signature)).statusCode).toBe(200);
    refused(await replay('POST', `/api/v1/webhook-subscriptions/${created.id}/rotate-secret`, signature));
    const body = JSON.stringify({ overlap_hours: 1 });
    refused(await replay('POST', `/api/v1/webhook-subscriptions/${created.id}/rotate-secret`, signRequest(t.demo.signing_secret, body), body));
    const before = rx.received.length;
    expect((await t.api('POST', `/api/v1/webhook-subscriptions/${created.id}/test`)).json().ok).toBe(true);
    const got = (await rx.waitFor(before + 1))[before]!;
    expect(String(got.headers['x-webhook-signature']).match(/v1=/g)).toHaveLength(1);
  });

  it('the bearer still works on those routes, and HMAC on every other', async () => {
    const created = await t.api('POST', '/api/v1/webhook-subscriptions', { url: `${rx.url}/bearer`, events: ['message.received'] });
    expect(created.statusCode).toBe(201);
    expect(created.json().secret).toMatch(/^whsec_/);
    const rotated = await t.api('POST', `/api/v1/webhook-subscriptions/${created.json().id}/rotate-secret`, {});
    expect(rotated.statusCode).toBe(200);
    const body = JSON.stringify({ enabled: false });
    expect((await replay('PATCH', `/api/v1/webhook-subscriptions/${created.json().id}`, signRequest(t.demo.signing_secret, body), body)).statusCode).toBe(200);
    const secret = await t.api('POST', '/api/v1/signing-secret/rotate', { overlap_hours: 1 });
    expect(secret.statusCode).toBe(200);
    t.demo.signing_secret = secret.json().signing_secret;
    expect((await replay('GET', '/api/v1/phone-numbers', signRequest(t.demo.signing_secret, ''))).statusCode).toBe(200);
  });
});
