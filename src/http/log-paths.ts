/**
 * The path a request is logged under: routes mark secret path parameters
 * (`config.secretParams`, e.g. the BlueBubbles webhook token) and those
 * segments never reach a log line.
 */
import type { RouteOptions } from 'fastify';

export const REDACTED = '[redacted]';

type PathPattern = { segments: string[]; secret: Set<number> };

/** Percent-decoded and lowercased, for comparing; a malformed segment stays as it is. */
function comparable(segment: string): string {
  try {
    return decodeURIComponent(segment).toLowerCase();
  } catch {
    return segment.toLowerCase();
  }
}

/**
 * The path to log for a request, without the values of secret path parameters. A path is
 * compared, segment by segment, with the patterns of the routes that have secrets, loosely
 * (case, percent-encoding, empty segments ignored): so the same URL is redacted whatever
 * happened to it, whether it reached its route, missed it (a wrong method, a trailing slash)
 * or never got routed (a malformed URL). Redacting a near miss too is harmless; logging a
 * token is not. Any other path costs one pass over its segments.
 */
export function secretPaths() {
  const patterns: PathPattern[] = [];

  function track(route: RouteOptions): void {
    const names = route.config?.secretParams;
    if (!names?.length) return;
    const segments = route.url.split('/').filter((seg) => seg !== '');
    const secret = new Set(segments.flatMap((seg, i) => (seg.startsWith(':') && names.includes(seg.slice(1)) ? [i] : [])));
    patterns.push({ segments: segments.map((seg) => (seg.startsWith(':') ? seg : seg.toLowerCase())), secret });
  }

  /** `req` is fastify's request, or whatever pino's req serializer is handed: only its url is read. */
  function of(req: { url?: string }): string {
    const path = (req.url ?? '').split('?')[0]!;
    if (patterns.length === 0) return path;
    const parts = path.split('/');
    const at = parts.flatMap((part, i) => (part === '' ? [] : [i]));
    for (const p of patterns) {
      if (p.segments.length !== at.length) continue;
      if (!p.segments.every((seg, k) => seg.startsWith(':') || comparable(parts[at[k]!]!) === seg)) continue;
      for (const k of p.secret) parts[at[k]!] = REDACTED;
      return parts.join('/');
    }
    return path;
  }

  return { track, of };
}

export type SecretPaths = ReturnType<typeof secretPaths>;
