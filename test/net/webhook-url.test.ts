import { describe, expect, it } from 'vitest';
import { validateWebhookUrl } from '../../src/net/index.js';

const strict = { allowPrivateNetworks: false };
const dev = { allowPrivateNetworks: true };

describe('validateWebhookUrl', () => {
  it('accepts public https URLs and normalizes them', () => {
    expect(validateWebhookUrl('https://hooks.example.com/in?x=1', strict)).toEqual({ ok: true, url: 'https://hooks.example.com/in?x=1' });
    expect(validateWebhookUrl('HTTPS://Hooks.Example.com', strict)).toEqual({ ok: true, url: 'https://hooks.example.com/' });
    expect(validateWebhookUrl('https://8.8.8.8:8443/h', strict).ok).toBe(true);
    expect(validateWebhookUrl('https://dev-inbox', strict)).toEqual({ ok: true, url: 'https://dev-inbox/' });
  });

  it.each([
    ['', /required/],
    ['hooks.example.com/in', /absolute/],
    ['/relative', /absolute/],
    ['ftp://example.com/x', /unsupported scheme ftp/],
    ['javascript:alert(1)', /unsupported scheme javascript/],
    ['http://hooks.example.com/in', /https/],
    ['https://user:pass@hooks.example.com/', /credentials/],
    ['https://token@hooks.example.com/', /credentials/],
    ['https://127.0.0.1/', /public address.*loopback/],
    ['https://2130706433/', /public address.*loopback/], // decimal form of 127.0.0.1
    ['https://0x7f.1/', /public address.*loopback/],
    ['https://10.0.0.1/', /private/],
    ['https://169.254.169.254/latest', /link-local/],
    ['https://[::1]/', /loopback/],
    ['https://[::ffff:127.0.0.1]/', /IPv4-mapped/],
    ['https://[fd00::1]/', /unique local/],
    ['https://0.0.0.0/', /unspecified/],
    ['https://localhost/', /localhost/],
    ['https://LOCALHOST./', /localhost/],
    ['https://api.localhost/', /localhost/],
    [`https://example.com/${'a'.repeat(2100)}`, /longer than 2048/],
  ])('rejects %j', (url, reason) => {
    const r = validateWebhookUrl(url, strict);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(reason);
  });

  it('allows http, private and loopback targets when private networks are allowed, but never credentials', () => {
    expect(validateWebhookUrl('http://127.0.0.1:8080/hook', dev).ok).toBe(true);
    expect(validateWebhookUrl('http://localhost:3000/hook', dev).ok).toBe(true);
    expect(validateWebhookUrl('http://192.168.1.20/hook', dev).ok).toBe(true);
    expect(validateWebhookUrl('http://u:p@localhost/', dev).ok).toBe(false);
    expect(validateWebhookUrl('ftp://localhost/', dev).ok).toBe(false);
  });
});
