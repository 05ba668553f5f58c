/** HubSpot's documented signature vectors, and the v3 window and URL rules. */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signV1, signV2, verifyHubSpotSignature } from '../../../src/crm/hubspot/signature.js';

const SECRET = 'yyyyyyyy-yyyy-yyyy-yyyy-yyyyyyyyyyyy';
const V1_BODY = '[{"eventId":1,"subscriptionId":12345,"portalId":62515,"occurredAt":1564113600000,"subscriptionType":"contact.creation","attemptNumber":0,"objectId":123,"changeSource":"CRM","changeFlag":"NEW","appId":54321}]';

describe('HubSpot signatures', () => {
  it('match the vectors in HubSpot\'s docs (v1, v2)', () => {
    expect(signV2(SECRET, 'GET', 'https://www.example.com/webhook_uri', '')).toBe('eee2dddcc73c94d699f5e395f4b9d454a069a6855fbfa152e91e88823087200e');
    expect(signV1(SECRET, V1_BODY)).toBe('232db2615f3d666fe21a8ec971ac7b5402d33b9a925784df3ca654d05f4817de');
  });

  it('v3: decoded characters, the 5-minute window, only the accepted versions', () => {
    const now = 1_800_000_000_000;
    const base = { secret: SECRET, publicBaseUrl: 'https://x.example', nowMs: now };
    const sig = (ts: number) => createHmac('sha256', SECRET).update(`GET${'https://x.example/crm/hubspot/card?e=a@b.c&x=(1)'}${''}${ts}`).digest('base64');
    const req = (ts: number) => ({ method: 'GET', pathAndQuery: '/crm/hubspot/card?e=a%40b.c&x=%281%29', rawBody: '', headers: { 'x-hubspot-signature-v3': sig(ts), 'x-hubspot-request-timestamp': String(ts) } });
    expect(verifyHubSpotSignature(req(now - 1000), { ...base, accept: ['v3'] })).toMatchObject({ ok: true, version: 'v3' });
    expect(verifyHubSpotSignature(req(now - 5 * 60_000 - 1), { ...base, accept: ['v3'] })).toMatchObject({ ok: false, reason: expect.stringMatching(/5 minutes old/) });
    const v1 = { method: 'POST', pathAndQuery: '/crm/hubspot/webhook', rawBody: V1_BODY, headers: { 'x-hubspot-signature': signV1(SECRET, V1_BODY), 'x-hubspot-signature-version': 'v1' } };
    expect(verifyHubSpotSignature(v1, { ...base, accept: ['v3', 'v1'] })).toMatchObject({ ok: true, version: 'v1' });
    expect(verifyHubSpotSignature(v1, { ...base, accept: ['v3'] })).toMatchObject({ ok: false });
  });
});
