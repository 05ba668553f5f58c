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
  /** Not retried once sent: a retry would issue another secret and the first answer would be lost. */
  rotate(params: RotateSigningSecretRequest = {}, opts: CallOptions = {}): Promise<RotatedSigningSecret> {
    return this.core.request({ method: 'POST', path: '/api/v1/signing-secret/rotate', json: params, retry: 'unsafe', ...opts });
  }
}
