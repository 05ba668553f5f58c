/** Recipient handles: E.164 phone numbers and Apple ID email addresses. */

export type Handle = { kind: 'phone' | 'email'; value: string };

const E164 = /^\+[1-9]\d{6,14}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Formatting characters people type and paste with numbers, as a regular expression's character
 * class (the contract's handle pattern is made with it): spaces (a non-breaking one too),
 * brackets, dots and dashes: "-", those documents and signatures turn it into (U+2010–U+2015:
 * hyphen, non-breaking hyphen, figure, en and em dash, bar), the minus sign (U+2212) and the
 * fullwidth hyphen-minus (U+FF0D). Anything else is invalid.
 */
export const PHONE_PUNCTUATION_CLASS = '\\s().\\u2010-\\u2015\\u2212\\uFF0D-';
const PHONE_PUNCTUATION = new RegExp(`[${PHONE_PUNCTUATION_CLASS}]`, 'g');

/** `raw` without the punctuation people write numbers with. */
export function withoutPhonePunctuation(raw: string): string {
  return raw.replace(PHONE_PUNCTUATION, '');
}

/** E.164 with common punctuation removed, or undefined when it is not a valid E.164 number. */
export function normalizeE164(raw: string): string | undefined {
  const compact = withoutPhonePunctuation(raw.trim());
  return E164.test(compact) ? compact : undefined;
}

/**
 * A piece of a phone number as handles hold it, when `raw` is one written with the punctuation
 * people type and paste ("(415) 555-0123" → "4155550123", "+1 415 555" → "+1415555"); undefined
 * when `raw` has no such punctuation or is not digits (with a leading +) once it is removed.
 */
export function compactPhonePiece(raw: string): string | undefined {
  const compact = withoutPhonePunctuation(raw);
  return compact !== raw && /^\+?\d+$/.test(compact) ? compact : undefined;
}

/** Phone → E.164; email → lowercased. Undefined when neither. */
export function normalizeHandle(raw: string): Handle | undefined {
  const trimmed = raw.trim();
  if (trimmed.includes('@')) {
    const lower = trimmed.toLowerCase();
    return EMAIL.test(lower) && lower.length <= 254 ? { kind: 'email', value: lower } : undefined;
  }
  const phone = normalizeE164(trimmed);
  return phone ? { kind: 'phone', value: phone } : undefined;
}
