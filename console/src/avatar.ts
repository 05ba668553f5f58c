/**
 * What a chat's avatar shows: a number's last two digits, else the initials of its name or
 * handle in any script (one letter where the script has no capitals: 'ש', 'س', '山'), else its
 * first emoji, else a neutral glyph. Never blank.
 */
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const LETTER = /^[\p{L}\p{N}]/u;
const PICTOGRAPH = /\p{Extended_Pictographic}/u;
export const AVATAR_FALLBACK = '•';

const firstGrapheme = (text: string, test: RegExp): string | undefined => {
  for (const { segment } of graphemes.segment(text)) if (test.test(segment)) return segment;
  return undefined;
};

/** Upper case when the script has it and it stays one letter ('ß' would become 'SS'). */
const capital = (g: string): string => {
  const up = g.toLocaleUpperCase();
  return [...graphemes.segment(up)].length === 1 ? up : g;
};
const cased = (g: string) => g.toLocaleUpperCase() !== g.toLocaleLowerCase();

function initials(text: string): string | undefined {
  const firsts = text
    .split(/[\s._+-]+/u)
    .map((w) => firstGrapheme(w, LETTER))
    .filter((g): g is string => !!g);
  const [first] = firsts;
  if (first) {
    const last = firsts[firsts.length - 1]!;
    // Two initials read well in cased scripts; Arabic would join them and CJK names are not split by spaces.
    return firsts.length > 1 && cased(first) && cased(last) ? capital(first) + capital(last) : capital(first);
  }
  return firstGrapheme(text, PICTOGRAPH);
}

export function avatarText(name: string | null | undefined, handle: string | undefined): string {
  if (name?.trim()) return initials(name) ?? AVATAR_FALLBACK;
  if (!handle) return AVATAR_FALLBACK;
  if (/^[\s+0-9().-]+$/.test(handle)) return handle.replace(/\D/g, '').slice(-2) || AVATAR_FALLBACK;
  return initials(handle.split('@')[0] ?? '') ?? AVATAR_FALLBACK;
}
