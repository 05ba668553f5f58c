/** Message rules shared by /send and the chat routes. */
import { DomainError } from '../../errors/registry.js';
import { ALLOWED_EFFECTS } from './vocabulary.js';
import { effectNamed } from '../effects.js';

import { MAX_TEXT_LENGTH } from './vocabulary.js';

export { ALLOWED_EFFECTS, MAX_PARTS, MAX_TEXT_LENGTH } from './vocabulary.js';

/** Image types that can be delivered grouped (parallel_attachments). */
export const GROUPABLE_IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/heic', 'image/heif'];

export function assertService(service: string | undefined): void {
  if (service !== undefined && service !== 'imessage') {
    throw new DomainError(1010, `messaging service "${service}" is not supported; only imessage is`);
  }
}

export function assertEffect(effect: string | undefined): void {
  if (effect !== undefined && !effectNamed(effect)) {
    throw new DomainError(4098, `unknown effect "${effect}"`, { allowedEffects: ALLOWED_EFFECTS });
  }
}

/**
 * 1009 past MAX_TEXT_LENGTH characters, counted as JSON Schema counts a string's length (Unicode
 * code points): an emoji is one character, as the sender sees it, not two UTF-16 units.
 */
export function assertTextLength(what: string, text: string): void {
  // Code points never outnumber UTF-16 units, so only a long text needs counting.
  if (text.length <= MAX_TEXT_LENGTH) return;
  let characters = 0;
  for (const _ of text) characters++;
  if (characters > MAX_TEXT_LENGTH) throw new DomainError(1009, `${what} is ${characters} characters; the maximum is ${MAX_TEXT_LENGTH}`);
}

/** URLs in text: a scheme, www., or a bare domain with a common top-level domain. */
const URL_PATTERN = /\bhttps?:\/\/\S+|\bwww\.\S+|\b[a-z0-9-]+(\.[a-z0-9-]+)*\.(com|net|org|io|co|app|dev|me|ly|gl|ai|us|uk|info|biz|link|xyz)\b/i;

export const containsUrl = (text: string) => URL_PATTERN.test(text);
