/**
 * Opus encode/decode via @evan/opus (libopus; native addon with a WASM fallback).
 *
 * Encoder settings for voice notes: 24 kHz mono, 20 ms packets (480 frames),
 * ~32 kbit/s VBR, application VOIP, complexity 8. VOIP mode favours speech intelligibility
 * (SILK/hybrid, speech pre-processing), which is what a voice note carries;
 * 32 kbit/s at 24 kHz is comfortably transparent for speech and matches the
 * bitrate seen in Apple-made voice notes.
 *
 * Pre-skip: libopus delays its output by its "lookahead"; the first that-many
 * decoded samples are priming, not signal. We ask the encoder for it
 * (OPUS_GET_LOOKAHEAD, ctl 4027 — the library's typings misspell the getter
 * as `lookhead`, so we use the raw ctl). For libopus at 24 kHz in VOIP/AUDIO
 * mode it is 156 = Fs/400 + Fs/250, i.e. the well-known 312 samples at
 * 48 kHz scaled to 24 kHz. test/audio/opus.test.ts checks it empirically by
 * encoding clicks/noise, decoding, and finding the cross-correlation peak at
 * exactly that lag. If the ctl ever fails we fall back to 312 × rate / 48000.
 */
import { Decoder, Encoder } from '@evan/opus';
import type { Yielder } from './cooperative.js';

export const OPUS_RATE = 24000;
export const OPUS_FRAME = 480; // 20 ms at 24 kHz
export const OPUS_BITRATE = 32000;
/** Rates libopus runs at; a CAF claiming Opus at another rate cannot be decoded. */
export const OPUS_RATES: readonly number[] = [8000, 12000, 16000, 24000, 48000];

const OPUS_GET_LOOKAHEAD = 4027;
const ENCODER_COMPLEXITY = 8;

type OpusRate = 8000 | 12000 | 16000 | 24000 | 48000;

export function isOpusRate(rate: number): rate is OpusRate {
  return OPUS_RATES.includes(rate);
}

export interface EncodedOpus {
  packets: Uint8Array[];
  /** Encoder lookahead in frames at OPUS_RATE (CAF primingFrames). */
  preSkip: number;
  /** Padding frames after the signal in the last packet (CAF remainderFrames). */
  remainder: number;
  /** Signal frames (CAF numberValidFrames). */
  validFrames: number;
}

function createEncoder(): Encoder {
  const enc = new Encoder({ channels: 1, sample_rate: OPUS_RATE, application: 'voip' });
  enc.bitrate = OPUS_BITRATE;
  enc.vbr = true;
  enc.signal = 'voice';
  // Complexity 8, not the default 10: SILK (the speech layer) already uses its
  // most thorough settings from 8 up, and 9–10 only add CELT search effort:
  // measured 4–50% more encode CPU depending on the signal, for no audible
  // gain on speech at 32 kbit/s. Encoding is most of the pipeline's cost.
  enc.complexity = ENCODER_COMPLEXITY;
  return enc;
}

export function encoderPreSkip(enc: Encoder): number {
  const v = enc.ctl(OPUS_GET_LOOKAHEAD);
  return Number.isInteger(v) && v > 0 ? v : Math.round((312 * OPUS_RATE) / 48000);
}

/**
 * Encode mono int16 samples at 24 kHz. The signal is followed by zeros so the
 * decoder, after dropping `preSkip` priming frames, yields every input sample:
 * packets = ceil((n + preSkip) / 480), remainder = packets·480 − preSkip − n.
 */
export async function encodeOpus(pcm: Int16Array, yielder?: Yielder): Promise<EncodedOpus> {
  const enc = createEncoder();
  const preSkip = encoderPreSkip(enc);
  const n = pcm.length;
  const count = Math.ceil((n + preSkip) / OPUS_FRAME);
  const packets: Uint8Array[] = new Array(count);
  const tail = new Int16Array(OPUS_FRAME);
  for (let i = 0; i < count; i++) {
    const at = i * OPUS_FRAME;
    let frame: Int16Array;
    if (at + OPUS_FRAME <= n) frame = pcm.subarray(at, at + OPUS_FRAME);
    else {
      tail.fill(0);
      if (at < n) tail.set(pcm.subarray(at, n));
      frame = tail;
    }
    packets[i] = enc.encode(frame);
    if ((i & 63) === 63 && yielder) await yielder();
  }
  return { packets, preSkip, remainder: count * OPUS_FRAME - preSkip - n, validFrames: n };
}

export function createDecoder(rate: number): Decoder {
  if (!isOpusRate(rate)) throw new RangeError(`Opus cannot decode at ${rate} Hz`);
  return new Decoder({ channels: 1, sample_rate: rate });
}

/** Decode one packet to mono int16 (a view over a fresh buffer). Throws libopus errors. */
export function decodePacket(dec: Decoder, packet: Uint8Array): Int16Array {
  const out = dec.decode(packet);
  return new Int16Array(out.buffer, out.byteOffset, out.byteLength >> 1);
}
