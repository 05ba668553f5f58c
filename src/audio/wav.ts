/**
 * RIFF/WAVE reader for uncompressed audio: integer PCM (8/16/24/32-bit),
 * IEEE float (32/64-bit) and WAVE_FORMAT_EXTENSIBLE wrapping either. Anything
 * compressed (ADPCM, µ-law, MP3-in-WAV, …) is rejected with its name, since
 * the spec asks callers to send PCM.
 *
 * Parsing only locates the samples (no copy); `readWavMono` then decodes any
 * frame range straight into a mono Float32 buffer, so the transcoder can work
 * block by block and never holds a full-length float copy of a 300 s file.
 */
import { AudioRejected } from './errors.js';

export interface WavInfo {
  /** 'pcm' = signed integer (unsigned for 8-bit), 'float' = IEEE float. */
  encoding: 'pcm' | 'float';
  sampleRate: number;
  channels: number;
  /** Bytes per sample in the container (1–4 for PCM, 4 or 8 for float). */
  bytesPerSample: number;
  /** Significant bits (wValidBitsPerSample for extensible), informational. */
  bitsPerSample: number;
  blockAlign: number;
  /** Whole frames actually present in the file. */
  frames: number;
  /** Byte offset of the first sample. */
  dataOffset: number;
  /** Size the `data` chunk declared (0xFFFFFFFF for streaming writers). */
  declaredDataBytes: number;
  /** True when the declared size ran past the end of the file and was clamped. */
  clamped: boolean;
}

const WAVE_FORMAT_PCM = 0x0001;
const WAVE_FORMAT_IEEE_FLOAT = 0x0003;
const WAVE_FORMAT_EXTENSIBLE = 0xfffe;

/** Names for the compressed WAV formats people actually meet, for the rejection message. */
const COMPRESSED_NAMES: Record<number, string> = {
  0x0002: 'Microsoft ADPCM',
  0x0006: 'A-law',
  0x0007: 'µ-law',
  0x0011: 'IMA ADPCM',
  0x0022: 'TrueSpeech',
  0x0031: 'GSM 6.10',
  0x0040: 'G.721 ADPCM',
  0x0050: 'MPEG audio',
  0x0055: 'MP3',
  0x0064: 'G.726 ADPCM',
  0x00ff: 'AAC',
  0x0160: 'WMA',
  0x0161: 'WMA',
  0x1610: 'AAC (HE)',
  0x2000: 'AC-3',
  0x674f: 'Ogg Vorbis',
  0x704f: 'Opus',
  0xf1ac: 'FLAC',
};

// The 14 bytes after the 2-byte format code in KSDATAFORMAT_SUBTYPE_* GUIDs
// (00000000-0000-0010-8000-00aa00389b71 with the code in the first field).
const SUBTYPE_TAIL = [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71];

const MIN_RATE = 8000;
const MAX_RATE = 192000;

function fourcc(b: Uint8Array, at: number): string {
  return String.fromCharCode(b[at], b[at + 1], b[at + 2], b[at + 3]);
}

function formatName(code: number): string {
  const hex = '0x' + code.toString(16).padStart(4, '0');
  const name = COMPRESSED_NAMES[code];
  return name ? `${name} (${hex})` : `format ${hex}`;
}

export function parseWav(bytes: Uint8Array): WavInfo {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const len = bytes.length;
  if (len < 12) throw new AudioRejected('wav_structure', 'WAV file is too short to hold a RIFF header');
  const riff = fourcc(bytes, 0);
  if ((riff !== 'RIFF' && riff !== 'RF64') || fourcc(bytes, 8) !== 'WAVE') {
    throw new AudioRejected('wav_structure', 'not a RIFF/WAVE file');
  }

  let fmt: { code: number; channels: number; rate: number; blockAlign: number; bits: number; validBits: number } | undefined;
  let data: { offset: number; declared: number; available: number } | undefined;

  // Walk the chunks. Unknown chunks (LIST, fact, bext, ds64, junk…) are skipped.
  let pos = 12;
  while (pos + 8 <= len) {
    const id = fourcc(bytes, pos);
    const size = dv.getUint32(pos + 4, true);
    const body = pos + 8;
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > len) throw new AudioRejected('wav_structure', "WAV 'fmt ' chunk is too short");
      const code = dv.getUint16(body, true);
      const bits = dv.getUint16(body + 14, true);
      fmt = {
        code,
        channels: dv.getUint16(body + 2, true),
        rate: dv.getUint32(body + 4, true),
        blockAlign: dv.getUint16(body + 12, true),
        bits,
        validBits: bits,
      };
      if (code === WAVE_FORMAT_EXTENSIBLE) {
        if (size < 40 || body + 40 > len) {
          throw new AudioRejected('wav_structure', "WAV 'fmt ' chunk says WAVE_FORMAT_EXTENSIBLE but is too short for it");
        }
        const validBits = dv.getUint16(body + 18, true);
        if (validBits > 0) fmt.validBits = validBits;
        const sub = dv.getUint16(body + 24, true);
        const tailOk = SUBTYPE_TAIL.every((v, i) => bytes[body + 26 + i] === v);
        if (!tailOk) {
          throw new AudioRejected('wav_format', 'WAV uses an unknown WAVE_FORMAT_EXTENSIBLE sub-format; only PCM or float WAV is accepted');
        }
        fmt.code = sub;
      }
    } else if (id === 'data') {
      const available = len - body;
      data = { offset: body, declared: size, available: Math.min(size, available) };
      // A size of 0xFFFFFFFF (streaming writers, RF64) or one past the end of
      // the file: the data runs to EOF, so nothing after it can be a chunk.
      if (size >= available) break;
    }
    // Chunks are padded to an even size; a missing final pad byte just ends the walk.
    pos = body + size + (size & 1);
  }

  if (!fmt) throw new AudioRejected('wav_structure', "WAV has no 'fmt ' chunk");
  if (!data) throw new AudioRejected('wav_structure', "WAV has no 'data' chunk");

  let encoding: 'pcm' | 'float';
  if (fmt.code === WAVE_FORMAT_PCM) encoding = 'pcm';
  else if (fmt.code === WAVE_FORMAT_IEEE_FLOAT) encoding = 'float';
  else {
    throw new AudioRejected(
      'wav_format',
      `WAV is compressed (${formatName(fmt.code)}); only uncompressed PCM or float WAV is accepted — convert it to PCM WAV first`,
    );
  }
  if (fmt.channels < 1) throw new AudioRejected('wav_format', 'WAV declares 0 channels');
  if (fmt.rate < MIN_RATE || fmt.rate > MAX_RATE) {
    throw new AudioRejected('wav_format', `WAV sample rate is ${fmt.rate} Hz; supported rates are ${MIN_RATE}–${MAX_RATE} Hz`);
  }
  // The container size comes from blockAlign, which is what the bytes obey;
  // wBitsPerSample can be a "valid bits" figure (e.g. 20 in a 24-bit container).
  const bytesPerSample = fmt.blockAlign / fmt.channels;
  const okSizes = encoding === 'pcm' ? [1, 2, 3, 4] : [4, 8];
  if (!Number.isInteger(bytesPerSample) || !okSizes.includes(bytesPerSample) || fmt.bits > bytesPerSample * 8 || fmt.bits === 0) {
    throw new AudioRejected(
      'wav_format',
      `WAV ${encoding === 'pcm' ? 'PCM' : 'float'} layout is unsupported (${fmt.bits} bits per sample, block align ${fmt.blockAlign} for ${fmt.channels} channels)`,
    );
  }

  return {
    encoding,
    sampleRate: fmt.rate,
    channels: fmt.channels,
    bytesPerSample,
    bitsPerSample: fmt.validBits,
    blockAlign: fmt.blockAlign,
    frames: Math.floor(data.available / fmt.blockAlign),
    dataOffset: data.offset,
    declaredDataBytes: data.declared,
    clamped: data.declared > data.available,
  };
}

/**
 * Decode frames [start, end) of the WAV into `out[0 .. end-start)` as mono
 * floats in [-1, 1), averaging the channels. Frames outside the file read as
 * silence, which lets the resampler ask for its filter margin at both ends.
 *
 * Averaging (rather than summing) can never clip; the cost is that a pure
 * anti-phase stereo pair cancels, which real recordings do not do.
 */
export function readWavMono(bytes: Uint8Array, info: WavInfo, start: number, end: number, out: Float32Array): void {
  const n = end - start;
  if (out.length < n) throw new RangeError('output buffer too small');
  const lo = Math.max(start, 0);
  const hi = Math.min(end, info.frames);
  if (lo >= hi) {
    out.fill(0, 0, n);
    return;
  }
  out.fill(0, 0, lo - start);
  out.fill(0, hi - start, n);

  const ch = info.channels;
  const block = info.blockAlign;
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let p = info.dataOffset + lo * block;
  let o = lo - start;
  const count = hi - lo;

  // One specialised loop per layout: a generic per-sample switch would cost
  // more than the whole resampler. Mono and stereo 16-bit are the hot cases.
  switch (info.encoding === 'float' ? -info.bytesPerSample : info.bytesPerSample) {
    case 2: {
      const k = 1 / (32768 * ch);
      if (ch === 1) for (let i = 0; i < count; i++, p += 2) out[o++] = dv.getInt16(p, true) / 32768;
      else if (ch === 2) for (let i = 0; i < count; i++, p += 4) out[o++] = (dv.getInt16(p, true) + dv.getInt16(p + 2, true)) * k;
      else
        for (let i = 0; i < count; i++, p += block) {
          let s = 0;
          for (let c = 0; c < ch; c++) s += dv.getInt16(p + 2 * c, true);
          out[o++] = s * k;
        }
      break;
    }
    case 1: {
      // 8-bit WAV is unsigned with 128 as silence.
      const k = 1 / (128 * ch);
      for (let i = 0; i < count; i++, p += block) {
        let s = 0;
        for (let c = 0; c < ch; c++) s += bytes[p + c] - 128;
        out[o++] = s * k;
      }
      break;
    }
    case 3: {
      const k = 1 / (8388608 * ch);
      for (let i = 0; i < count; i++, p += block) {
        let s = 0;
        for (let c = 0, q = p; c < ch; c++, q += 3) s += ((bytes[q] | (bytes[q + 1] << 8) | (bytes[q + 2] << 16)) << 8) >> 8;
        out[o++] = s * k;
      }
      break;
    }
    case 4: {
      const k = 1 / (2147483648 * ch);
      for (let i = 0; i < count; i++, p += block) {
        let s = 0;
        for (let c = 0; c < ch; c++) s += dv.getInt32(p + 4 * c, true);
        out[o++] = s * k;
      }
      break;
    }
    case -4:
    case -8: {
      const k = 1 / ch;
      const wide = info.bytesPerSample === 8;
      for (let i = 0; i < count; i++, p += block) {
        let s = 0;
        for (let c = 0; c < ch; c++) {
          const v = wide ? dv.getFloat64(p + 8 * c, true) : dv.getFloat32(p + 4 * c, true);
          // NaN/Inf in a float WAV would poison the filter; treat as silence / full scale.
          s += v !== v ? 0 : v > 1 ? 1 : v < -1 ? -1 : v;
        }
        out[o++] = s * k;
      }
      break;
    }
    default:
      throw new Error(`unreachable: ${info.encoding} ${info.bytesPerSample}`);
  }
}
