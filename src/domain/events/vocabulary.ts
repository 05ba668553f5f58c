/**
 * The event log's words, with no dependencies: what the domain checks and the contract
 * (src/contract/) declares as enums come from here, so the two cannot drift.
 */

/** A subscription url of exactly this records deliveries in the dev inbox, without any POST. */
export const DEV_INBOX_URL = 'https://dev-inbox';

/**
 * The event types a subscription may name. The spec shows message.received; message.failed (an
 * outbound message its line failed after the send was answered) is recorded only for a project
 * with a subscription to it.
 */
export const EVENT_TYPES = ['message.received', 'message.failed'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** An event's delivery state (spec: States). */
export const EVENT_STATUSES = ['pending', 'delivered', 'failed', 'dev_inbox'] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];
