import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { rotateWebhookSubscriptionSecret } from '../../../contract/webhook-subscriptions-rotate-secret.js';
import { isoAt } from '../../../clock.js';
import type { SubscriptionsService } from '../../../domain/events/subscriptions.js';

export function rotateWebhookSubscriptionSecretRoute(app: TypedApp, deps: { subscriptions: SubscriptionsService }) {
  route(app, rotateWebhookSubscriptionSecret, async (req) => {
    const hours = req.body.overlap_hours;
    const r = await deps.subscriptions.rotateSecret(principalOf(req).tenant.id, req.params.id, hours === undefined ? undefined : hours * 3600_000);
    return { id: r.id, secret: r.secret, previous_secret_expires_at: isoAt(r.previousSecretExpiresAt) };
  });
}
