/** Small translations between Blueline's terms and BlueBubbles'. */
import type { Target, Tapback } from '../types.js';
import { ATTACHMENT_PLACEHOLDER, type BBChat } from './api-types.js';

/**
 * A group's chat key unchanged (`iMessage;+;chat…`); for a person, the guess `iMessage;-;<address>`
 * when BlueBubbles has named no chat with them yet (direct-chats.ts).
 */
export function chatGuidFor(target: Target): string {
  return target.kind === 'group' ? target.chatKey : `iMessage;-;${target.handle}`;
}

/** BlueBubbles' chat style 43 is a group, 45 a one-to-one chat; the guid says the same with ";+;". */
export function isGroupChat(chat: BBChat | undefined): boolean {
  if (!chat) return false;
  if (chat.style === 43) return true;
  if (chat.style === 45) return false;
  return typeof chat.guid === 'string' && chat.guid.includes(';+;');
}

const E164 = /^\+[1-9]\d{6,14}$/;

/** Phone numbers to E.164 (punctuation removed), emails lowercased; anything else trimmed as is. */
export function normalizeHandle(raw: string): string {
  const trimmed = raw.trim();
  if (trimmed.includes('@')) return trimmed.toLowerCase();
  const compact = trimmed.replace(/[\s().-]/g, '');
  return E164.test(compact) ? compact : trimmed;
}

/**
 * Whether a send's effect is an Apple expressive send id, as BlueBubbles takes it for `effectId`
 * (it implies the Private API). The domain turns effect names into these ids (domain/effects.ts).
 */
export const isAppleEffectId = (id: string): boolean => /^com\.apple\.(MobileSMS\.expressivesend\.[a-z]+|messages\.effect\.CK[A-Za-z]+Effect)$/.test(id);

/** BlueBubbles' reaction values: the tapback, or "-tapback" to take it back (MessageInterface.possibleReactions). */
export function reactionValue(tapback: Tapback, remove: boolean): string {
  return remove ? `-${tapback}` : tapback;
}

/** The text older devices see for an edit (BlueBubbles requires `backwardsCompatibilityMessage`). */
export const editFallbackText = (newText: string) => `Edited to \u201c${newText}\u201d`;

/**
 * BlueBubbles' own text clean-up (MessageSerializer.convert → Message.universalText(true) →
 * helpers/utils.ts sanitizeStr): every U+FFFC removed, then trimmed.
 */
export function sanitizeText(text: string | null | undefined): string {
  return (text ?? '').split(ATTACHMENT_PLACEHOLDER).join('').trim();
}

/** Messages stored the message with an error (4: timed out, 22: not delivered): it reached no one. */
export const storedFailed = (m: { error?: number } | null | undefined): boolean => typeof m?.error === 'number' && m.error !== 0;
