import type { CreateSubscriptionRequest, CreatedSubscription, DeletedSubscription, RotateSecretRequest, RotatedSecret, Subscription } from '../types.js';
import { Resource, seg, type CallOptions } from './base.js';
import type { SubscriptionTestResult, SubscriptionUpdate } from './console.js';

/** The dev inbox's URL: events are recorded for `devInbox.pull()` and never POSTed. */
export const DEV_INBOX_URL = 'https://dev-inbox';

export class WebhookSubscriptions extends Resource {
  /** `POST /api/v1/webhook-subscriptions`. The answer's `secret` (whsec_…) is shown only here; sent with the bearer even under `auth: 'hmac'`. */
  create(params: CreateSubscriptionRequest, opts: CallOptions = {}): Promise<CreatedSubscription> {
    return this.core.request({ method: 'POST', path: '/api/v1/webhook-subscriptions', json: params, retry: 'unsafe', ...opts });
  }

  async list(opts: CallOptions = {}): Promise<Subscription[]> {
    const res = await this.core.request<{ subscriptions: Subscription[] }>({ method: 'GET', path: '/api/v1/webhook-subscriptions', retry: 'idempotent', ...opts });
    return res.subscriptions;
  }

  get(subscriptionId: string, opts: CallOptions = {}): Promise<Subscription> {
    return this.core.request({ method: 'GET', path: `/api/v1/webhook-subscriptions/${seg(subscriptionId)}`, retry: 'idempotent', ...opts });
  }

  delete(subscriptionId: string, opts: CallOptions = {}): Promise<DeletedSubscription> {
    return this.core.request({ method: 'DELETE', path: `/api/v1/webhook-subscriptions/${seg(subscriptionId)}`, retry: 'idempotent', ...opts });
  }

  /** `PATCH`: url, events, or `enabled: false` to pause deliveries (the secret stays). */
  update(subscriptionId: string, params: SubscriptionUpdate, opts: CallOptions = {}): Promise<Subscription> {
    return this.core.request({ method: 'PATCH', path: `/api/v1/webhook-subscriptions/${seg(subscriptionId)}`, json: params, retry: 'unsafe', ...opts });
  }

  /** Sends a signed sample event (event_id test:…) now and says what the endpoint answered. */
  test(subscriptionId: string, opts: CallOptions = {}): Promise<SubscriptionTestResult> {
    return this.core.request({ method: 'POST', path: `/api/v1/webhook-subscriptions/${seg(subscriptionId)}/test`, retry: 'unsafe', ...opts });
  }

  /** A new secret; the old one stays valid for `overlap_hours` (deliveries carry one v1= per valid secret). Sent with the bearer even under `auth: 'hmac'`. */
  rotateSecret(subscriptionId: string, params: RotateSecretRequest = {}, opts: CallOptions = {}): Promise<RotatedSecret> {
    return this.core.request({ method: 'POST', path: `/api/v1/webhook-subscriptions/${seg(subscriptionId)}/rotate-secret`, json: params, retry: 'unsafe', noSignature: true, ...opts });
  }
}
