import type { Req, Res } from '../types.js';
import { Resource, type CallOptions } from './base.js';

export type SigningSecretStatus = Res<'/api/v1/signing-secret', 'get'>['signing_secret'];
export type RotateSigningSecretRequest = Req<'/api/v1/signing-secret/rotate', 'post'>;
export type RotatedSigningSecret = Res<'/api/v1/signing-secret/rotate', 'post'>;

/**
 * `client.signingSecret`: the account's signing secret, which all its tenants share. `get()`
 * tells when it was issued and until when a replaced one works (never the secret); `rotate()`
 * issues a new one, answered this once. Keep using the old secret until you have switched:
 * it works until `previous_secret_expires_at`.
 */
export class SigningSecret extends Resource {
  async get(opts: CallOptions = {}): Promise<SigningSecretStatus> {
    return (await this.core.request<{ signing_secret: SigningSecretStatus }>({ method: 'GET', path: '/api/v1/signing-secret', retry: 'idempotent', ...opts })).signing_secret;
  }
  /**
   * Not retried once sent: the secret it replaces cannot rotate again (2005), and the answer is
   * the only copy of the new one. Sent with the bearer even under `auth: 'hmac'` (the API takes
   * no signature where the answer is a secret). Only the current secret can rotate.
   */
  rotate(params: RotateSigningSecretRequest = {}, opts: CallOptions = {}): Promise<RotatedSigningSecret> {
    return this.core.request({ method: 'POST', path: '/api/v1/signing-secret/rotate', json: params, retry: 'unsafe', noSignature: true, ...opts });
  }
}
