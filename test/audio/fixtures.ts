/**
 * Sound the audio tests make themselves: WAV files of any layout, plus small
 * signal helpers (Goertzel, RMS) to check that decoded audio is real sound.
 */
import { AudioRejected } from '../../src/audio/errors.js';

/** The descriptor of a voice note as Apple writes it: Opus, 24 kHz, 480 frames per packet, mono. */
export const VOICE_NOTE_DESC = {
  sampleRate: 24000,
  formatId: 'opus',
  formatFlags: 0,
  bytesPerPacket: 0,
  framesPerPacket: 480,
  channelsPerFrame: 1,
  bitsPerChannel: 0,
};

/** The AudioRejected that `fn` throws (fails the test if it throws nothing or something else). */
export function rejection(fn: () => unknown): AudioRejected {
  try {
    fn();
  } catch (err) {
    if (err instanceof AudioRejected) return err;
    throw err;
  }
  throw new Error('expected AudioRejected');
}

export type WavEncoding = 'pcm8' | 'pcm16' | 'pcm24' | 'pcm32' | 'float32' | 'float64';

export interface WavOptions {
  sampleRate: number;
  channels?: number;
  encoding?: WavEncoding;
  /** Write a WAVE_FORMAT_EXTENSIBLE fmt chunk. */
  extensible?: boolean;
  /** Extra chunks before 'data' (e.g. LIST/odd-sized junk) to exercise the chunk walker. */
  extraChunks?: { id: string; body: Uint8Array }[];
  /** Override the data chunk's declared size (e.g. 0xFFFFFFFF for streaming writers). */
  declaredDataSize?: number;
  /** Raw fmt override for compressed formats: the format tag written as-is. */
  formatTag?: number;
  bitsPerSample?: number;
}

/** Signal: sample value in [-1, 1] for frame i, channel c. */
export type Signal = (i: number, c: number) => number;

export const sine =
  (freq: number, rate: number, amp = 0.5): Signal =>
  (i) =>
    amp * Math.sin((2 * Math.PI * freq * i) / rate);

export const silence: Signal = () => 0;

export function noise(amp = 0.3, seed = 12345): Signal {
  let s = seed >>> 0;
  // Per-frame cache so every channel of a frame gets its own deterministic value.
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return amp * (s / 0x100000000 - 0.5) * 2;
  };
}

/** Speech-like: a few harmonics of a gliding pitch, syllable-rate amplitude modulation, and a little noise. */
export function speechLike(rate: number): Signal {
  const n = noise(0.03, 777);
  return (i) => {
    const t = i / rate;
    // pitch glides 110–170 Hz; phase is the integral of that frequency
    const phase = 2 * Math.PI * (140 * t - (30 / (2 * Math.PI * 0.7)) * Math.cos(2 * Math.PI * 0.7 * t));
    const env = 0.5 + 0.5 * Math.sin(2 * Math.PI * 4 * t);
    return env * (0.3 * Math.sin(phase) + 0.15 * Math.sin(2 * phase) + 0.08 * Math.sin(3 * phase)) + n(i, 0);
  };
}

const GUID_TAIL = [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71];

export function makeWav(frames: number, signal: Signal, opts: WavOptions): Buffer {
  const channels = opts.channels ?? 1;
  const encoding = opts.encoding ?? 'pcm16';
  const bytesPer = { pcm8: 1, pcm16: 2, pcm24: 3, pcm32: 4, float32: 4, float64: 8 }[encoding];
  const bits = opts.bitsPerSample ?? bytesPer * 8;
  const blockAlign = bytesPer * channels;
  const dataBytes = frames * blockAlign;
  const baseTag = encoding.startsWith('float') ? 3 : 1;
  const fmtSize = opts.extensible ? 40 : 16;
  const extra = opts.extraChunks ?? [];
  const extraBytes = extra.reduce((a, c) => a + 8 + c.body.length + (c.body.length & 1), 0);
  const total = 12 + 8 + fmtSize + extraBytes + 8 + dataBytes + (dataBytes & 1);
  const b = Buffer.alloc(total);
  b.write('RIFF', 0, 'latin1');
  b.writeUInt32LE(total - 8, 4);
  b.write('WAVE', 8, 'latin1');
  let o = 12;
  b.write('fmt ', o, 'latin1');
  b.writeUInt32LE(fmtSize, o + 4);
  o += 8;
  b.writeUInt16LE(opts.formatTag ?? (opts.extensible ? 0xfffe : baseTag), o);
  b.writeUInt16LE(channels, o + 2);
  b.writeUInt32LE(opts.sampleRate, o + 4);
  b.writeUInt32LE(opts.sampleRate * blockAlign, o + 8);
  b.writeUInt16LE(blockAlign, o + 12);
  b.writeUInt16LE(bits, o + 14);
  if (opts.extensible) {
    b.writeUInt16LE(22, o + 16); // cbSize
    b.writeUInt16LE(bits, o + 18); // valid bits
    b.writeUInt32LE(channels === 1 ? 0x4 : 0x3, o + 20); // channel mask
    // GUID layout: Data1 u32 (format code), then the fixed tail starting at Data2.
    b.writeUInt32LE(baseTag, o + 24);
    for (let i = 0; i < 12; i++) b[o + 28 + i] = GUID_TAIL[i + 2];
  }
  o += fmtSize;
  for (const c of extra) {
    b.write(c.id, o, 'latin1');
    b.writeUInt32LE(c.body.length, o + 4);
    b.set(c.body, o + 8);
    o += 8 + c.body.length + (c.body.length & 1);
  }
  b.write('data', o, 'latin1');
  b.writeUInt32LE(opts.declaredDataSize ?? dataBytes, o + 4);
  o += 8;
  for (let i = 0; i < frames; i++) {
    for (let c = 0; c < channels; c++) {
      const v = Math.max(-1, Math.min(1, signal(i, c)));
      switch (encoding) {
        case 'pcm8':
          b[o] = Math.max(0, Math.min(255, Math.round(v * 127) + 128));
          break;
        case 'pcm16':
          b.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(v * 32767))), o);
          break;
        case 'pcm24':
          b.writeIntLE(Math.max(-8388608, Math.min(8388607, Math.round(v * 8388607))), o, 3);
          break;
        case 'pcm32':
          b.writeInt32LE(Math.max(-2147483648, Math.min(2147483647, Math.round(v * 2147483647))), o);
          break;
        case 'float32':
          b.writeFloatLE(v, o);
          break;
        case 'float64':
          b.writeDoubleLE(v, o);
          break;
      }
      o += bytesPer;
    }
  }
  return b;
}

/** Fast 16-bit mono/stereo WAV for long signals (no per-sample Buffer method calls). */
export function makeWav16Fast(frames: number, channels: number, sampleRate: number, signal?: Signal): Buffer {
  const dataBytes = frames * channels * 2;
  const b = Buffer.alloc(44 + dataBytes);
  b.write('RIFF', 0, 'latin1');
  b.writeUInt32LE(36 + dataBytes, 4);
  b.write('WAVEfmt ', 8, 'latin1');
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(channels, 22);
  b.writeUInt32LE(sampleRate, 24);
  b.writeUInt32LE(sampleRate * channels * 2, 28);
  b.writeUInt16LE(channels * 2, 32);
  b.writeUInt16LE(16, 34);
  b.write('data', 36, 'latin1');
  b.writeUInt32LE(dataBytes, 40);
  if (signal) {
    const pcm = new Int16Array(b.buffer, b.byteOffset + 44, frames * channels);
    for (let i = 0, k = 0; i < frames; i++)
      for (let c = 0; c < channels; c++) pcm[k++] = Math.max(-32768, Math.min(32767, Math.round(signal(i, c) * 32767)));
  }
  return b;
}

/** Power of `freq` in `x` (Goertzel), normalised by length. */
export function goertzel(x: ArrayLike<number>, rate: number, freq: number, from = 0, to = x.length): number {
  const w = (2 * Math.PI * freq) / rate;
  const c = 2 * Math.cos(w);
  let s1 = 0;
  let s2 = 0;
  for (let i = from; i < to; i++) {
    const s0 = x[i] + c * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  return (s1 * s1 + s2 * s2 - c * s1 * s2) / ((to - from) * (to - from));
}

export function rms(x: ArrayLike<number>, from = 0, to = x.length): number {
  let s = 0;
  for (let i = from; i < to; i++) s += x[i] * x[i];
  return Math.sqrt(s / Math.max(1, to - from));
}
