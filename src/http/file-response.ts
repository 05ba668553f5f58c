/** Sending a stored file over HTTP: Content-Type/Length, a filename, and byte ranges (206/416). */
import type { FastifyReply } from 'fastify';
import type { Readable } from 'node:stream';

export interface FileToSend {
  size: number;
  contentType: string;
  filename: string | null;
  open(range?: { start: number; end: number }): Readable;
}

/**
 * A `Range` header (`bytes=a-b`, `bytes=a-`, `bytes=-n`) as an inclusive range; undefined when
 * unsatisfiable (416); 'ignore' for a form this service does not serve (the whole file, 200).
 * An invalid range (`bytes=5-2`: last before first) is ignored too, as RFC 9110 §14.2 says; only
 * a valid one that misses the file is unsatisfiable.
 */
export function parseRange(header: string, size: number): { start: number; end: number } | undefined | 'ignore' {
  // The unit is case-insensitive (RFC 9110 §14.1); whitespace around `=` is not in the grammar.
  const m = /^bytes=(\d*)-(\d*)$/i.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return 'ignore';
  if (m[1] !== '' && m[2] !== '' && Number(m[2]) < Number(m[1])) return 'ignore';
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0 || size === 0) return undefined;
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return undefined;
  return { start, end };
}

/**
 * A stored file is someone else's bytes (a contact's inbound media, a tenant's upload) served from
 * the console's origin: it is always a download (`attachment`, with or without a filename), its
 * type is never sniffed, and a browser that renders it anyway runs nothing (a sandbox without
 * scripts, nothing loaded). `<img>`, `<audio>` and `<video>` still play it: they ignore all three.
 */
const CONTAINED = { 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': "sandbox; default-src 'none'" } as const;

/** RFC 8187 attr-char: what `filename*` may carry unencoded. */
const ATTR_CHAR = /^[A-Za-z0-9!#$&+\-.^_`|~]$/;

/**
 * `attachment` with the file's name twice (RFC 6266 §4.3): `filename*` holds it exactly (RFC 8187:
 * UTF-8, every byte outside attr-char percent-encoded, `'` `(` `)` `*` included, which strict
 * parsers refuse bare), and `filename` an ASCII stand-in for clients that read only that one
 * (curl -J, older libraries). The stand-in has no quote, backslash, control character or
 * non-ASCII character (each becomes `_`), no `%` (some clients would percent-decode it), and
 * no `/`, so it is always a plain name.
 */
export function contentDisposition(filename: string | null): string {
  if (!filename) return 'attachment';
  const ascii = filename.replace(/[^\x20-\x7e]|["\\%/]/gu, '_');
  let exact = '';
  // Over the UTF-8 bytes (a lone surrogate becomes U+FFFD, where encodeURIComponent would throw).
  for (const byte of Buffer.from(filename, 'utf8')) {
    exact += ATTR_CHAR.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return `attachment; filename="${ascii}"; filename*=UTF-8''${exact}`;
}

/**
 * Streams the file, or the part `Range` asks for. The stored bytes are opened before any header
 * is set: a file gone from the disk or a bucket out of reach is then the standard 500 envelope
 * (and logged with its request), not a body-less answer already named `attachment; filename=…`.
 */
export async function streamFile(reply: FastifyReply, file: FileToSend, rangeHeader: string | undefined) {
  const range = rangeHeader ? parseRange(rangeHeader, file.size) : 'ignore';
  const headers = () => reply.header('Accept-Ranges', 'bytes').header('Content-Type', file.contentType).headers(CONTAINED).header('Content-Disposition', contentDisposition(file.filename));
  if (range === undefined) {
    // No body, so no Content-Type or Content-Disposition: nothing is sent as the file.
    return reply.header('Accept-Ranges', 'bytes').headers(CONTAINED).status(416).header('Content-Range', `bytes */${file.size}`).send();
  }
  if (range === 'ignore') {
    const body = await readable(file.open());
    return headers().status(200).header('Content-Length', String(file.size)).send(body);
  }
  const body = await readable(file.open(range));
  return headers()
    .status(206)
    .header('Content-Range', `bytes ${range.start}-${range.end}/${file.size}`)
    .header('Content-Length', String(range.end - range.start + 1))
    .send(body);
}

/** The stream once its source answered (its first bytes, or its end), or the error it failed with. */
function readable(stream: Readable): Promise<Readable> {
  return new Promise((resolve, reject) => {
    const ready = () => {
      stream.off('error', failed);
      resolve(stream);
    };
    const failed = (err: Error) => {
      stream.off('readable', ready);
      stream.destroy();
      reject(err);
    };
    stream.once('readable', ready);
    stream.once('error', failed);
  });
}
