/** How the console writes a time, in the browser's time zone and locale. */

export const shortTime = (iso: string, locale?: string) => new Date(iso).toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** A message's time: the time of day today, with its date on any other day (a thread spans days). */
export function messageTime(iso: string, now = new Date(), locale?: string): string {
  const at = new Date(iso);
  if (at.toDateString() === now.toDateString()) return shortTime(iso, locale);
  const year = at.getFullYear() === now.getFullYear() ? undefined : 'numeric';
  return at.toLocaleString(locale, { year, month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}
