/** Recipient handles: E.164 phone numbers and Apple ID email addresses. */

export type Handle = { kind: 'phone' | 'email'; value: string };

const E164 = /^\+[1-9]\d{6,14}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Formatting characters people paste with numbers; anything else is invalid. */
const PHONE_PUNCTUATION = /[\s().-]/g;

/** E.164 with common punctuation removed, or undefined when it is not a valid E.164 number. */
export function normalizeE164(raw: string): string | undefined {
  const compact = raw.trim().replace(PHONE_PUNCTUATION, '');
  return E164.test(compact) ? compact : undefined;
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
