/**
 * Bytes an upload of a given type accepts: the format's signature, then random filler. Uploads
 * are checked against their declared type's signature (src/domain/media/file-signatures.ts).
 */
import { randomBytes } from 'node:crypto';

const HEADS: Record<string, Buffer> = {
  'image/png': Buffer.from('89504e470d0a1a0a', 'hex'),
  'image/jpeg': Buffer.from('ffd8ffe0', 'hex'),
  'image/gif': Buffer.from('GIF89a', 'latin1'),
  'image/webp': Buffer.from('RIFF\0\0\0\0WEBP', 'latin1'),
  'image/heic': Buffer.from('\0\0\0\x18ftypheic', 'latin1'),
  'image/heif': Buffer.from('\0\0\0\x18ftypmif1', 'latin1'),
  'video/mp4': Buffer.from('\0\0\0\x18ftypisom', 'latin1'),
  'video/quicktime': Buffer.from('\0\0\0\x14ftypqt  ', 'latin1'),
  'audio/m4a': Buffer.from('\0\0\0\x18ftypM4A ', 'latin1'),
  'audio/wav': Buffer.from('RIFF\0\0\0\0WAVE', 'latin1'),
  'audio/mpeg': Buffer.from('ID3', 'latin1'),
  'audio/aac': Buffer.from('fff1', 'hex'),
  'application/pdf': Buffer.from('%PDF-1.7\n', 'latin1'),
};

/** `size` bytes (at least the signature's) that pass as a file of `type`. */
export function fileBytes(type: string, size = 64): Buffer {
  const head = HEADS[type];
  if (!head) throw new Error(`no test signature for ${type}`);
  return Buffer.concat([head, randomBytes(Math.max(0, size - head.length))]);
}
