/** A HubSpot contact's phone and the `{{property}}` templates rendered with its properties. */
import { normalizeE164 } from '../../domain/handles.js';

export const CONTACT_PROPERTIES = ['phone', 'mobilephone', 'firstname', 'lastname'];

/** A usable phone (normalized to E.164), or why the contact has none. */
export type ContactPhone =
  | { raw: string; normalized: string; source: 'mobilephone' | 'phone'; reason?: undefined }
  | { raw: string | null; normalized: null; source: null; reason: string };

/**
 * mobilephone first (iMessage reaches mobiles), then phone. HubSpot keeps numbers as
 * typed: E.164 with punctuation passes; a bare 10-digit number is taken as North
 * American (+1), as HubSpot shows it; anything else is refused with the reason.
 */
export function contactPhone(props: Record<string, string | null | undefined>): ContactPhone {
  let firstRaw: string | null = null;
  for (const source of ['mobilephone', 'phone'] as const) {
    const raw = props[source]?.trim();
    if (!raw) continue;
    firstRaw ??= raw;
    const normalized = normalizePhone(raw);
    if (normalized) return { raw, normalized, source };
  }
  if (firstRaw) return { raw: firstRaw, normalized: null, source: null, reason: `"${firstRaw.slice(0, 40)}" is not a phone number in E.164 (e.g. +14155550100)` };
  return { raw: null, normalized: null, source: null, reason: 'the contact has neither mobilephone nor phone' };
}

export function normalizePhone(raw: string): string | undefined {
  const e164 = normalizeE164(raw);
  if (e164) return e164;
  const digits = raw.replace(/[\s().-]/g, '');
  if (/^\d{10}$/.test(digits) && /^[2-9]/.test(digits)) return `+1${digits}`;
  if (/^1\d{10}$/.test(digits)) return `+${digits}`;
  return undefined;
}

/** `{{firstname}}`-style placeholders from the contact's properties; an absent property renders empty. */
export function renderTemplate(template: string, props: Record<string, string | null | undefined>): string {
  return template.replace(/\{\{\s*([a-zA-Z0-9_]+)\s*\}\}/g, (_, name: string) => props[name] ?? '').trim();
}
