/**
 * Finding a URL in a first message's text (1005). The rule exists because a link in a first touch
 * is what the recipient's device turns into a tappable link (and what spam filters weigh), so this
 * looks for what a phone's link detection finds: a scheme (`https://`, `ftp://`, …), `www.`, an
 * IPv4 address, or a bare domain ending in a country code or a common generic top-level domain.
 * An e-mail address is not a URL: its domain is skipped.
 */

/** ISO 3166 country-code top-level domains (IANA's list). */
const COUNTRY_TLDS =
  'ac ad ae af ag ai al am ao aq ar as at au aw ax az ba bb bd be bf bg bh bi bj bm bn bo br bs bt bw by bz ca cc cd cf cg ch ci ck cl cm cn co cr cu cv cw cx cy cz de dj dk dm do dz ec ee eg er es et eu fi fj fk fm fo fr ga gd ge gf gg gh gi gl gm gn gp gq gr gs gt gu gw gy hk hm hn hr ht hu id ie il im in io iq ir is it je jm jo jp ke kg kh ki km kn kp kr kw ky kz la lb lc li lk lr ls lt lu lv ly ma mc md me mg mh mk ml mm mn mo mp mq mr ms mt mu mv mw mx my mz na nc ne nf ng ni nl no np nr nu nz om pa pe pf pg ph pk pl pm pn pr ps pt pw py qa re ro rs ru rw sa sb sc sd se sg sh si sk sl sm sn so sr ss st su sv sx sy sz tc td tf tg th tj tk tl tm tn to tr tt tv tw tz ua ug uk us uy uz va vc ve vg vi vn vu wf ws ye yt za zm zw';

/** Generic top-level domains seen in links people send (the full list has ~1,200, most never used). */
const GENERIC_TLDS =
  'com net org edu gov mil int info biz name pro mobi asia app dev page link xyz online site website store shop tech blog cloud news live club top icu vip one life today world space fun art design agency digital studio media global email services solutions network systems group company center works zone click help chat social video photo team land city market host win bet health finance money bank capital ltd llc inc tours travel events church school academy training games game love care law legal consulting marketing realty house homes estate auto cars deals sale coupons gifts fashion beauty fit golf show';

const TLD = `(?:${[...COUNTRY_TLDS.split(' '), ...GENERIC_TLDS.split(' ')].sort((a, b) => b.length - a.length).join('|')})`;
const LABEL = '[\\p{L}\\p{N}](?:[\\p{L}\\p{N}-]{0,61}[\\p{L}\\p{N}])?';

const URL_PATTERN = new RegExp(
  [
    // Any scheme followed by something: https://x, ftp://x, sms://…
    '\\b[a-z][a-z0-9+.-]*:\\/\\/[^\\s/?#]',
    '\\bwww\\.[\\p{L}\\p{N}-]',
    // An IPv4 address, with or without a port or path.
    '(?<![\\p{N}.])(?:(?:25[0-5]|2[0-4]\\d|1?\\d?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1?\\d?\\d)(?![\\p{N}]|\\.\\p{N})',
    // A bare domain: not inside a longer word, nor an e-mail address's domain (after "@").
    `(?<![\\p{L}\\p{N}@._-])(?:${LABEL}\\.)+${TLD}(?![\\p{L}\\p{N}_-]|\\.[\\p{L}\\p{N}])`,
  ].join('|'),
  'iu',
);

/** The first URL-like text in `text`, for the refusal to name it; undefined when there is none. */
export function findUrl(text: string): string | undefined {
  const m = URL_PATTERN.exec(text);
  if (!m) return undefined;
  // Show the whole token the match begins, up to the next space: "example.de/offer", not "example.de".
  const rest = text.slice(m.index).match(/^\S+/u)![0];
  return rest.length > 80 ? `${rest.slice(0, 77)}...` : rest;
}
