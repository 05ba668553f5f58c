/** Message rules shared by /send and the chat routes. */
import { DomainError } from '../../errors/registry.js';
import { ALLOWED_EFFECTS } from './vocabulary.js';
import { effectNamed } from '../effects.js';
import { findUrl } from './urls.js';

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

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * What every text sent to a recipient must be (a body, a text part, an edit's new text): not
 * blank (1002: only spaces would send or leave an empty-looking bubble), well-formed Unicode
 * without NUL (1002: JSON can escape a lone surrogate or a NUL, which a Mac would turn into
 * U+FFFD or cut the text at), and within the length (1009).
 */
export function assertText(what: string, text: string): void {
  if (text.trim() === '') throw new DomainError(1002, `${what} is empty`);
  if (LONE_SURROGATE.test(text)) throw new DomainError(1002, `${what} is not valid Unicode: it has a lone surrogate (half of a UTF-16 pair)`);
  if (text.includes('\u0000')) throw new DomainError(1002, `${what} contains a NUL character (\\u0000)`);
  assertTextLength(what, text);
}

/**
 * 1009 past MAX_TEXT_LENGTH characters, counted as JSON Schema counts a string's length (Unicode
 * code points): an emoji is one character, as the sender sees it, not two UTF-16 units.
 */
function assertTextLength(what: string, text: string): void {
  // Code points never outnumber UTF-16 units, so only a long text needs counting.
  if (text.length <= MAX_TEXT_LENGTH) return;
  let characters = 0;
  for (const _ of text) characters++;
  if (characters > MAX_TEXT_LENGTH) throw new DomainError(1009, `${what} is ${characters} characters; the maximum is ${MAX_TEXT_LENGTH}`);
}

/** 1005: a first message into a new chat carries no URL; the refusal names what it took for one. */
export function assertNoUrl(what: string, text: string): void {
  const url = findUrl(text);
  if (url !== undefined) throw new DomainError(1005, `the first message in a new chat cannot contain URLs, and ${what} contains "${url}": send text first, links once the chat exists`);
}
