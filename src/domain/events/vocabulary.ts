/**
 * The event log's words, with no dependencies: what the domain checks and the contract
 * (src/contract/) declares as enums come from here, so the two cannot drift.
 */

/** A subscription url of exactly this records deliveries in the dev inbox, without any POST. */
export const DEV_INBOX_URL = 'https://dev-inbox';

/**
 * What happened to a message: one the project sent went out, was delivered, read, or failed
 * after its line accepted it; a tapback was put on or taken off one (a contact's, or one made on
 * the line's Mac); a contact edited one they sent. Additions to the spec's events, recorded only for a project with a
 * subscription to them (status-events.ts).
 */
export const STATUS_EVENT_TYPES = ['message.sent', 'message.delivered', 'message.read', 'message.failed', 'message.reacted', 'message.edited'] as const;
export type StatusEventType = (typeof STATUS_EVENT_TYPES)[number];

/** The event types a subscription may name: the spec's message.received, and the status events. */
export const EVENT_TYPES = ['message.received', ...STATUS_EVENT_TYPES] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** An event's delivery state (spec: States). */
export const EVENT_STATUSES = ['pending', 'delivered', 'failed', 'dev_inbox'] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];
