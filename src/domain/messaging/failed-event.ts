/**
 * The `message.failed` event: recorded in the transaction that fails the message, with one
 * delivery per subscription to it. Unlike message.received (recorded `failed` for a project with
 * no destination, so it can be replayed), nothing is recorded for a project that did not ask:
 * the type is an addition to the spec's events, and its subscribers opt in.
 */
import type { Clock } from '../../clock.js';
import type { Message, Repos } from '../../store/index.js';
import type { EventBus } from '../events/bus.js';
import { destinations } from '../events/destinations.js';
import { messageFailedEnvelope, messageFailedEventId } from '../events/failed-envelope.js';
import { ids, newEventId } from '../ids.js';

export interface FailedEvents {
  /** Records the event for `failed` (the message as it is now failed), if any subscription wants it; whether it did. */
  record(tx: Repos, failed: Message): Promise<boolean>;
  /** After the commit: wakes the delivery worker and the event streams. */
  recorded(tenantId: string): void;
}

export function failedEvents(deps: { clock: Clock; bus: EventBus; deepLinkTemplate: string }): FailedEvents {
  return {
    async record(tx, failed) {
      const now = deps.clock.now();
      const eventRef = newEventId(now);
      const { subscribed, status, devInbox, jobs } = destinations(await tx.events.subscriptions(failed.tenant_id), 'message.failed', eventRef, failed.tenant_id, now);
      if (!subscribed || !failed.line_id) return false;
      const [tenant, line, chat] = [await tx.tenants.getById(failed.tenant_id), await tx.lines.get(failed.line_id), await tx.chats.getChat(failed.tenant_id, failed.chat_id)];
      if (!tenant || !line || !chat) return false;
      const envelope = messageFailedEnvelope({
        tenant, line, chat, participants: await tx.chats.participants(chat.id), message: failed, traceId: ids.trace(), nowMs: now, deepLinkTemplate: deps.deepLinkTemplate,
      });
      const event = {
        id: eventRef, tenant_id: tenant.id, type: 'message.failed', event_id: messageFailedEventId(failed.id), lead_id: chat.lead_id,
        convo_id: chat.convo_id, payload: JSON.stringify(envelope), status, dev_inbox: devInbox, delivered_at: null, created_at: now,
      };
      if (!(await tx.events.insertEvent(event))) return false;
      await tx.events.insertJobs(jobs);
      return true;
    },
    recorded: (tenantId) => deps.bus.eventRecorded(tenantId),
  };
}
