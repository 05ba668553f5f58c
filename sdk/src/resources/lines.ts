import type { PhoneLine } from '../types.js';
import { Resource, type CallOptions } from './base.js';

export class Lines extends Resource {
  /** The phone lines assigned to the project (`GET /api/v1/phone-numbers`). */
  async list(opts: CallOptions = {}): Promise<PhoneLine[]> {
    const res = await this.core.request<{ phone_numbers: PhoneLine[] }>({ method: 'GET', path: '/api/v1/phone-numbers', retry: 'idempotent', ...opts });
    return res.phone_numbers;
  }
}
