/** Message rules shared by /send and the chat routes. */
import { ApiError } from '../../errors/registry.js';
import { ALLOWED_EFFECTS, effectNamed } from '../effects.js';

/** Characters in one text part; iMessage takes more, but longer texts are almost always a bug. */
export const MAX_TEXT_LENGTH = 10_000;
export const MAX_PARTS = 10;

/** Image types that can be delivered grouped (parallel_attachments). */
export const GROUPABLE_IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/heic', 'image/heif'];

export function assertService(service: string | undefined): void {
  if (service !== undefined && service !== 'imessage') {
    throw new ApiError(1010, `messaging service "${service}" is not supported; only imessage is`);
  }
}

export function assertEffect(effect: string | undefined): void {
  if (effect !== undefined && !effectNamed(effect)) {
    throw new ApiError(4098, `unknown effect "${effect}"`, { allowed_effects: ALLOWED_EFFECTS });
  }
}

/** URLs in text: a scheme, www., or a bare domain with a common top-level domain. */
const URL_PATTERN = /\bhttps?:\/\/\S+|\bwww\.\S+|\b[a-z0-9-]+(\.[a-z0-9-]+)*\.(com|net|org|io|co|app|dev|me|ly|gl|ai|us|uk|info|biz|link|xyz)\b/i;

export const containsUrl = (text: string) => URL_PATTERN.test(text);
