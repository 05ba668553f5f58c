/**
 * PCM WAV → Opus-in-CAF, block by block:
 *   WAV samples → mono float (one block + filter margin at a time)
 *   → 24 kHz int16 (whole output, 2 bytes/frame: 14 MB for 300 s)
 *   → Opus packets → CAF.
 * Peak memory is the input buffer plus ~1.3× the output PCM; there is never a
 * full-length float copy of the input.
 */
import { writeOpusCaf } from './caf.js';
import type { Yielder } from './cooperative.js';
import { encodeOpus, OPUS_FRAME, OPUS_RATE } from './opus.js';
import { floatToInt16, Resampler } from './resample.js';
import { checkDuration } from './validate.js';
import { parseWav, readWavMono } from './wav.js';

/** Output frames per block: 1 s at 24 kHz keeps the scratch buffer small and yields often. */
const BLOCK = OPUS_RATE;

/** Mono int16 at 24 kHz from a PCM/float WAV (any rate, any channel count). */
export async function wavToPcm24k(bytes: Uint8Array, yielder?: Yielder): Promise<Int16Array> {
  const info = parseWav(bytes);
  const rate = info.sampleRate;
  const outFrames = Math.round((info.frames * OPUS_RATE) / rate);
  // Reject by the length of the audio actually present (a clamped data chunk
  // counts what is there, not what the header claimed) before doing any work.
  checkDuration(outFrames / OPUS_RATE);

  const out = new Int16Array(outFrames);
  if (rate === OPUS_RATE) {
    const scratch = new Float32Array(BLOCK);
    for (let at = 0; at < outFrames; at += BLOCK) {
      const count = Math.min(BLOCK, outFrames - at);
      readWavMono(bytes, info, at, at + count, scratch);
      floatToInt16(scratch, out, at, count);
      await yielder?.();
    }
    return out;
  }

  const rs = new Resampler(rate, OPUS_RATE);
  let scratch = new Float32Array(0);
  for (let from = 0; from < outFrames; from += BLOCK) {
    const to = Math.min(from + BLOCK, outFrames);
    const span = rs.inputSpan(from, to);
    const need = span.end - span.start;
    if (scratch.length < need) scratch = new Float32Array(need);
    readWavMono(bytes, info, span.start, span.end, scratch);
    rs.process(scratch, span.start, out, from, to);
    await yielder?.();
  }
  return out;
}

/** Encode a WAV as a voice-note CAF (24 kHz mono Opus, 20 ms packets). */
export async function wavToOpusCaf(bytes: Uint8Array, yielder?: Yielder): Promise<Buffer> {
  const pcm = await wavToPcm24k(bytes, yielder);
  const enc = await encodeOpus(pcm, yielder);
  return writeOpusCaf({
    sampleRate: OPUS_RATE,
    framesPerPacket: OPUS_FRAME,
    packets: enc.packets,
    primingFrames: enc.preSkip,
    remainderFrames: enc.remainder,
  });
}
