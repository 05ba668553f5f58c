/**
 * Messaging's words and limits, with no dependencies: what the domain checks and the contract
 * (src/contract/) declares in its schemas and descriptions come from here, so the two cannot drift.
 */

/** The effects a text bubble can carry (anything else is 4098, which names these): see ../effects.ts. */
export { ALLOWED_EFFECTS } from '../effects.js';

/** Characters in one text part; iMessage takes more, but longer texts are almost always a bug. */
export const MAX_TEXT_LENGTH = 10_000;

/** Parts (bubbles) in one message or send (1006 past it). */
export const MAX_PARTS = 10;
