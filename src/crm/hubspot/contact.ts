/** A HubSpot contact's phone and the `{{property}}` templates rendered with its properties. */
import { normalizeE164, withoutPhonePunctuation } from '../../domain/handles.js';

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
  const digits = withoutPhonePunctuation(raw);
  if (/^\d{10}$/.test(digits) && /^[2-9]/.test(digits)) return `+1${digits}`;
  if (/^1\d{10}$/.test(digits)) return `+${digits}`;
  return undefined;
}

/**
 * A placeholder: `{{property}}`, or `{{property|fallback}}` for a contact whose property is empty.
 * Property names are HubSpot's internal names (lowercase letters, digits, underscores).
 */
const PLACEHOLDER = /\{\{\s*([a-zA-Z0-9_]+)\s*(?:\|([^{}]*))?\}\}/g;
/** At most this many properties are read for a template (one GET; HubSpot's URL stays short). */
export const MAX_TEMPLATE_PROPERTIES = 50;

/** The contact properties a template names, lowercased, for the one contact read that renders it. */
export function templateProperties(template: string): string[] {
  const names = new Set<string>();
  for (const m of template.matchAll(PLACEHOLDER)) names.add(m[1]!.toLowerCase());
  return [...names].slice(0, MAX_TEMPLATE_PROPERTIES);
}

/** The properties to read for a contact whose text is `template`: the phone's and the template's. */
export const propertiesFor = (template: string) => [...new Set([...CONTACT_PROPERTIES, ...templateProperties(template)])];

/**
 * The template with each placeholder replaced by the contact's property; an empty or absent
 * property renders its fallback (`{{firstname|there}}` → "there"), else nothing.
 */
export function renderTemplate(template: string, props: Record<string, string | null | undefined>): string {
  return template
    .replace(PLACEHOLDER, (_, name: string, fallback: string | undefined) => {
      // The contact's own string properties only: {{constructor}} or {{toString}} name no property (an object's prototype is no contact's).
      const own = (key: string) => (Object.hasOwn(props, key) && typeof props[key] === 'string' ? (props[key] as string) : undefined);
      const value = own(name.toLowerCase()) ?? own(name);
      return value?.trim() ? value : (fallback ?? '').trim();
    })
    .trim();
}
