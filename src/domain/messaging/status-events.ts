/**
 * The status events (`message.sent`, `message.delivered`, `message.read`, `message.failed` of an
 * outbound message; `message.reacted`, a tapback a line reported): each recorded in the
 * transaction that changes the message (or its tapbacks), with one delivery per subscription to
 * it. Unlike message.received (recorded `failed` for a project with no destination, so it can be
 * replayed), nothing is recorded for a project that did not ask: the types are additions to the
 * spec's events, and their subscribers opt in.
 */
import type { Clock } from '../../clock.js';
import type { Message, Repos, Store } from '../../store/index.js';
import type { LineReaction } from '../../drivers/types.js';
import type { EventBus } from '../events/bus.js';
import { destinations } from '../events/destinations.js';
import { statusEnvelope } from '../events/status-envelope.js';
import { STATUS_EVENT_TYPES, type StatusEventType } from '../events/vocabulary.js';
import { ids, newEventId } from '../ids.js';

/** How long a line's answer to "which status events does its project want" is kept (business ms). */
export const WANTED_TTL_MS = 1_000;

export interface StatusEvents {
  /**
   * Records `type` for `message` (as it is now), if a subscription wants it; whether it did.
   * `reaction`: what message.reacted reports (the tapback the line reported).
   */
  record(tx: Repos, type: StatusEventType, message: Message, reaction?: LineReaction): Promise<boolean>;
  /** After the commit: wakes the delivery worker and the event streams. */
  recorded(tenantId: string): void;
  /**
   * Runs `change` (the update that moves `message` on; false when it did not) and, if the
   * project wants `type`, records it in the same transaction, with the message as the change left
   * it. For a project that does not, the change runs alone: a send pays one cached lookup.
   */
  announce(type: StatusEventType, message: Message, change: (repos: Repos) => Promise<boolean>, reaction?: LineReaction): Promise<boolean>;
  /**
   * The status events the project of `lineId` subscribes to, read at most once a WANTED_TTL_MS:
   * receipts are as many as sends, and most projects want none. A subscription made or changed
   * is seen within that time, in every process.
   */
  wantedFor(lineId: string): Promise<ReadonlySet<StatusEventType>>;
}

/**
 * `change`, with `type` recorded alongside for a project that wants it (StatusEvents.announce);
 * where no status events are wired (a service built without them), `change` alone.
 */
export function changeAnnounced(
  events: StatusEvents | undefined,
  store: Store,
  type: StatusEventType,
  message: Message,
  change: (repos: Repos) => Promise<boolean>,
  reaction?: LineReaction,
): Promise<boolean> {
  return events ? events.announce(type, message, change, reaction) : change(store);
}

export function statusEvents(deps: { store: Store; clock: Clock; bus: EventBus; deepLinkTemplate: string }): StatusEvents {
  const wanted = new Map<string, { at: number; types: ReadonlySet<StatusEventType> }>();
  const self: StatusEvents = {
    async record(tx, type, message, reaction) {
      const now = deps.clock.now();
      const eventRef = newEventId(now);
      const { subscribed, status, devInbox, jobs } = destinations(await tx.events.subscriptions(message.tenant_id), type, eventRef, message.tenant_id, now);
      if (!subscribed || !message.line_id) return false;
      const [tenant, line, chat] = [await tx.tenants.getById(message.tenant_id), await tx.lines.get(message.line_id), await tx.chats.getChat(message.tenant_id, message.chat_id)];
      if (!tenant || !line || !chat) return false;
      const envelope = statusEnvelope({
        type, tenant, line, chat, participants: await tx.chats.participants(chat.id), message, reaction, traceId: ids.trace(), nowMs: now, deepLinkTemplate: deps.deepLinkTemplate,
      });
      const event = {
        id: eventRef, tenant_id: tenant.id, type, event_id: envelope.event_id, lead_id: chat.lead_id,
        convo_id: chat.convo_id, payload: JSON.stringify(envelope), status, dev_inbox: devInbox, delivered_at: null, created_at: now,
      };
      if (!(await tx.events.insertEvent(event))) return false;
      await tx.events.insertJobs(jobs);
      return true;
    },
    recorded: (tenantId) => deps.bus.eventRecorded(tenantId),
    async announce(type, message, change, reaction) {
      if (!message.line_id || !(await self.wantedFor(message.line_id)).has(type)) return change(deps.store);
      let recorded = false;
      const changed = await deps.store.transaction(async (tx) => {
        if (!(await change(tx))) return false;
        const now = await tx.messages.get(message.tenant_id, message.id);
        recorded = now !== undefined && (await self.record(tx, type, now, reaction));
        return true;
      });
      if (recorded) self.recorded(message.tenant_id);
      return changed;
    },
    async wantedFor(lineId) {
      const now = deps.clock.now();
      const known = wanted.get(lineId);
      if (known && now - known.at < WANTED_TTL_MS && now >= known.at) return known.types;
      const line = await deps.store.lines.get(lineId);
      const subs = line ? await deps.store.events.subscriptions(line.tenant_id) : [];
      const types = new Set(STATUS_EVENT_TYPES.filter((t) => subs.some((s) => s.enabled && s.events.includes(t))));
      wanted.set(lineId, { at: now, types });
      return types;
    },
  };
  return self;
}
