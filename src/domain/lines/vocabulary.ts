/**
 * Phone lines' words, with no dependencies: what the domain checks and the contract
 * (src/contract/) declares as enums come from here, so the two cannot drift.
 */

/** The drivers a line can run on. */
export const LINE_DRIVERS = ['simulator', 'bluebubbles'] as const;
export type LineDriverName = (typeof LINE_DRIVERS)[number];

/** What a line may be declared to do (spec: "imessage, send, receive"); all three by default. */
export const LINE_CAPABILITIES = ['imessage', 'send', 'receive'] as const;
export type LineCapability = (typeof LINE_CAPABILITIES)[number];

export const isLineCapability = (c: string): c is LineCapability => (LINE_CAPABILITIES as readonly string[]).includes(c);
