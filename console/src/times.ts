/** How the console writes a time, in the browser's time zone and locale. */

/**
 * One formatter per locale and style. `toLocaleTimeString(locale, options)` builds a new
 * Intl.DateTimeFormat on every call (about a millisecond in Chromium): the live tail's 200 rows
 * drawn that way held the page for 100–250 ms four times a second.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(locale: string | undefined, style: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${locale ?? ''}|${style}`;
  let f = formatters.get(key);
  if (!f) formatters.set(key, (f = new Intl.DateTimeFormat(locale, options)));
  return f;
}

export const shortTime = (iso: string, locale?: string) =>
  formatter(locale, 'clock', { hour: '2-digit', minute: '2-digit', second: '2-digit' }).format(new Date(iso));

/** A message's time: the time of day today, with its date on any other day (a thread spans days). */
export function messageTime(iso: string, now = new Date(), locale?: string): string {
  const at = new Date(iso);
  if (at.toDateString() === now.toDateString()) return shortTime(iso, locale);
  return at.getFullYear() === now.getFullYear()
    ? formatter(locale, 'day', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }).format(at)
    : formatter(locale, 'day-year', { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }).format(at);
}
