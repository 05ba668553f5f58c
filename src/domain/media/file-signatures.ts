/**
 * Do an upload's first bytes match its declared type? (The spec's "MIME mismatch", 1002.) A file
 * sent as `image/png` that is something else reaches the recipient as a broken bubble, so an
 * upload is refused, keeping nothing. Each supported type is recognised by its format's
 * signature; formats of one family that are often labelled as each other (MP4, QuickTime, M4A,
 * HEIC: all ISO base media files; MP3 and AAC behind ID3 tags) are not told apart.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { DomainError } from '../../errors/registry.js';
import { sniffAudio } from '../../audio/sniff.js';
import { SUPPORTED_UPLOAD_TYPES, type UploadType } from './vocabulary.js';

/** Enough for every signature below (a PDF's `%PDF-` may follow up to 1 KiB of other bytes). */
const HEAD_BYTES = 1024;

const startsAt = (head: Buffer, offset: number, ascii: string) => head.subarray(offset, offset + ascii.length).equals(Buffer.from(ascii, 'latin1'));
const isoMedia = (head: Buffer) => startsAt(head, 4, 'ftyp');
const id3 = (head: Buffer) => startsAt(head, 0, 'ID3');

const SIGNATURES: Record<UploadType, (head: Buffer) => boolean> = {
  'image/jpeg': (h) => h[0] === 0xff && h[1] === 0xd8 && h[2] === 0xff,
  'image/png': (h) => startsAt(h, 0, '\x89PNG\r\n\x1a\n'),
  'image/gif': (h) => startsAt(h, 0, 'GIF87a') || startsAt(h, 0, 'GIF89a'),
  'image/webp': (h) => startsAt(h, 0, 'RIFF') && startsAt(h, 8, 'WEBP'),
  'image/heic': isoMedia,
  'image/heif': isoMedia,
  'video/mp4': isoMedia,
  // Older QuickTime files begin with another atom than ftyp.
  'video/quicktime': (h) => isoMedia(h) || ['moov', 'mdat', 'wide', 'free', 'skip', 'pnot'].some((atom) => startsAt(h, 4, atom)),
  'audio/m4a': isoMedia,
  'audio/wav': (h) => ['RIFF', 'RIFX', 'RF64'].some((riff) => startsAt(h, 0, riff)) && startsAt(h, 8, 'WAVE'),
  // ID3 tags, else an MPEG audio frame with a layer (the voice-note sniffer tells it from ADTS).
  'audio/mpeg': (h) => sniffAudio(h) === 'mp3',
  // ADTS frames, ADIF, or ID3 tags before either.
  'audio/aac': (h) => sniffAudio(h) === 'aac' || id3(h) || startsAt(h, 0, 'ADIF'),
  'application/pdf': (h) => h.includes('%PDF-', 0, 'latin1'),
};

/** Whether `head` (a file's first bytes, up to 1 KiB) can be a file of `type`. */
export const matchesSignature = (type: UploadType, head: Buffer) => SIGNATURES[type](head);

/** What the bytes look like instead, for the refusal's message. */
function lookalike(head: Buffer): string {
  if (isoMedia(head)) return 'they begin like an ISO media file (video/mp4, video/quicktime, audio/m4a, image/heic or image/heif)';
  const found = SUPPORTED_UPLOAD_TYPES.find((t) => SIGNATURES[t](head));
  return found ? `they begin like ${found}` : 'their first bytes match none of the supported types';
}

/**
 * A pass-through that holds the first 1 KiB (or the whole file, when shorter), checks it against
 * `type`, and on a mismatch fails with 1002 once the body has ended: the rest is read and dropped
 * meanwhile, so a client still sending gets the answer instead of a reset connection (a refusal
 * while the body streams in would close it under the client). The blob store keeps nothing.
 */
export function signatureCheck(type: string): Transform {
  const known = (SUPPORTED_UPLOAD_TYPES as readonly string[]).includes(type);
  let head: Buffer[] = [];
  let held = 0;
  let checked = false;
  let refusal: Error | undefined;
  const check = (self: Transform) => {
    const bytes = Buffer.concat(head);
    checked = true;
    head = [];
    const start = bytes.subarray(0, HEAD_BYTES);
    if (known && !matchesSignature(type as UploadType, start)) {
      refusal = new DomainError(1002, `the uploaded bytes are not ${type}: ${lookalike(start)}; nothing was kept`);
    } else self.push(bytes);
  };
  return new Transform({
    transform(this: Transform, chunk: Buffer, _enc, cb: TransformCallback) {
      if (refusal) return cb();
      if (checked) return cb(null, chunk);
      head.push(chunk);
      held += chunk.length;
      if (held >= HEAD_BYTES) check(this);
      cb();
    },
    flush(this: Transform, cb: TransformCallback) {
      if (!checked) check(this);
      cb(refusal);
    },
  });
}
