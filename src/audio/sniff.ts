/**
 * Find out what the bytes really are from their magic numbers. The declared
 * mime_type is only a label; a relabelled MP3 must be caught here, before any
 * parser sees it, so the caller gets "these are MP3 bytes" rather than an
 * obscure structural error.
 */
export type SniffedFormat =
  | 'caf'
  | 'wav'
  | 'mp3'
  | 'aac'
  | 'ogg'
  | 'webm'
  | 'm4a'
  | 'flac'
  | 'aiff'
  | 'amr'
  | 'unknown';

export const FORMAT_LABEL: Record<SniffedFormat, string> = {
  caf: 'CAF',
  wav: 'WAV',
  mp3: 'MP3',
  aac: 'AAC (ADTS)',
  ogg: 'Ogg',
  webm: 'WebM/Matroska',
  m4a: 'M4A/MP4',
  flac: 'FLAC',
  aiff: 'AIFF',
  amr: 'AMR',
  unknown: 'unrecognised',
};

function ascii(b: Uint8Array, at: number, len: number): string {
  if (b.length < at + len) return '';
  let s = '';
  for (let i = 0; i < len; i++) s += String.fromCharCode(b[at + i]);
  return s;
}

export function sniffAudio(b: Uint8Array): SniffedFormat {
  const head = ascii(b, 0, 4);
  if (head === 'caff') return 'caf';
  // RF64 is the >4 GB variant of RIFF; same chunk layout, sizes live in ds64.
  if ((head === 'RIFF' || head === 'RF64') && ascii(b, 8, 4) === 'WAVE') return 'wav';
  if (head === 'OggS') return 'ogg';
  if (head === 'fLaC') return 'flac';
  if (head === 'FORM' && (ascii(b, 8, 4) === 'AIFF' || ascii(b, 8, 4) === 'AIFC')) return 'aiff';
  if (ascii(b, 0, 5) === '#!AMR') return 'amr';
  if (b.length >= 4 && b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3) return 'webm';
  if (ascii(b, 4, 4) === 'ftyp') return 'm4a';
  // An ID3v2 tag almost always fronts MP3 (it can front ADTS AAC too; either way it is rejected).
  if (ascii(b, 0, 3) === 'ID3') return 'mp3';
  if (b.length >= 2 && b[0] === 0xff && (b[1] & 0xe0) === 0xe0) {
    // 11-bit frame sync. Layer bits 00 with a 12-bit sync is ADTS (AAC); other layers are MPEG audio.
    const layer = (b[1] >> 1) & 3;
    if (layer === 0) return (b[1] & 0xf0) === 0xf0 ? 'aac' : 'unknown';
    return 'mp3';
  }
  return 'unknown';
}
