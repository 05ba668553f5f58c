/**
 * The gate every staged voice note passes, whether the caller sent CAF or we
 * made it from WAV: a well-formed CAF holding mono Opus whose packet table
 * agrees with the data, whose every packet decodes to the length the table
 * promises, and whose length is 0.5–300 s.
 *
 * Duration is measured, not declared: numberValidFrames is only trusted after
 * it has been checked against packets × frames − priming − remainder, and the
 * frames of every packet are confirmed by actually decoding it. (What Opus
 * cannot tell us: a bit flipped deep inside a packet's entropy-coded payload
 * still decodes, to slightly different sound — Opus has no checksum. We catch
 * damaged framing: bad TOC/frame counts, wrong lengths, sizes that do not add
 * up, truncation.)
 */
import { packetSizesOf, readCaf, type CafFile } from './caf.js';
import type { Yielder } from './cooperative.js';
import { AudioRejected } from './errors.js';
import { createDecoder, decodePacket, isOpusRate } from './opus.js';

export const MIN_DURATION_S = 0.5;
export const MAX_DURATION_S = 300;

export interface VoiceNoteCafInfo {
  sampleRate: number;
  framesPerPacket: number;
  numberPackets: number;
  numberValidFrames: number;
  primingFrames: number;
  remainderFrames: number;
  durationSeconds: number;
}

/** Format checks shared by validation and decodeCafToPcm: Opus, mono, an Opus rate. */
export function checkOpusMono(caf: CafFile): void {
  const { desc } = caf;
  if (desc.formatId !== 'opus') {
    throw new AudioRejected('codec', `CAF codec is '${desc.formatId}', expected 'opus'`);
  }
  if (desc.channelsPerFrame !== 1) {
    throw new AudioRejected('channels', `CAF has ${desc.channelsPerFrame} channels; a voice note must be mono`);
  }
  if (caf.channelLayoutChannels !== null && caf.channelLayoutChannels !== 1) {
    throw new AudioRejected(
      'channels',
      `CAF channel layout describes ${caf.channelLayoutChannels} channels; a voice note must be mono`,
    );
  }
  if (!isOpusRate(desc.sampleRate)) {
    throw new AudioRejected('sample_rate', `CAF sample rate is ${desc.sampleRate} Hz; Opus runs at 8000, 12000, 16000, 24000 or 48000 Hz`);
  }
}

function tableError(msg: string): never {
  throw new AudioRejected('packet_table', msg);
}

/** Two decimals, or as many as it takes (up to 6) not to read as the limit it missed: 0.4995 s is not "0.50 s". */
function fmtSeconds(s: number): string {
  for (let digits = 2; digits < 6; digits++) {
    const shown = s.toFixed(digits);
    if (Number(shown) !== MIN_DURATION_S && Number(shown) !== MAX_DURATION_S) return shown;
  }
  return s.toFixed(6);
}

export function checkDuration(seconds: number): void {
  if (seconds < MIN_DURATION_S) {
    throw new AudioRejected('duration', `voice note is ${fmtSeconds(seconds)} s; minimum is ${MIN_DURATION_S} s`);
  }
  if (seconds > MAX_DURATION_S) {
    throw new AudioRejected('duration', `voice note is ${fmtSeconds(seconds)} s; maximum is ${MAX_DURATION_S} s`);
  }
}

/** Packet sizes/frames checked against the data chunk and the pakt header. */
interface CheckedTable {
  sizes: Uint32Array;
  /** Expected decoded frames per packet. */
  frames: (i: number) => number;
  totalFrames: number;
  priming: number;
  remainder: number;
  valid: number;
}

export function checkPacketTable(caf: CafFile): CheckedTable {
  const { desc, pakt } = caf;
  const sizes = packetSizesOf(caf);
  const fpp = desc.framesPerPacket;
  const n = sizes.length;

  let bytes = 0;
  for (let i = 0; i < n; i++) {
    if (sizes[i] === 0) tableError(`packet ${i + 1} of ${n} is empty`);
    bytes += sizes[i];
  }
  if (bytes !== caf.audioBytes) {
    tableError(`packet table lists ${bytes} bytes of packets but the data chunk holds ${caf.audioBytes}`);
  }
  if (pakt && pakt.numberPackets !== n) {
    tableError(`packet table says ${pakt.numberPackets} packets but the data chunk holds ${n}`);
  }
  if (n === 0) tableError('CAF holds no audio packets');

  let totalFrames = 0;
  const variable = pakt?.packetFrames ?? null;
  if (variable) for (let i = 0; i < n; i++) totalFrames += variable[i];
  else totalFrames = n * fpp;
  const frames = variable ? (i: number) => variable[i] : () => fpp;

  const priming = pakt ? pakt.primingFrames : 0;
  const remainder = pakt ? pakt.remainderFrames : 0;
  if (priming < 0 || remainder < 0) tableError(`packet table has negative priming (${priming}) or remainder (${remainder}) frames`);
  const valid = totalFrames - priming - remainder;
  if (pakt && pakt.numberValidFrames !== valid) {
    tableError(
      `packet table says ${pakt.numberValidFrames} valid frames, but ${n} packets hold ${totalFrames} frames ` +
        `minus ${priming} priming and ${remainder} remainder = ${valid}`,
    );
  }
  if (valid < 0) tableError(`priming and remainder frames (${priming + remainder}) exceed the ${totalFrames} frames in the packets`);
  return { sizes, frames, totalFrames, priming, remainder, valid };
}

/**
 * Decode every packet, calling `sink` with each one's samples. Throws
 * `packet_decode` on the first packet libopus refuses, that is coded stereo
 * in a mono file, or that decodes to a different length than the table says.
 */
export async function decodeAllPackets(
  bytes: Uint8Array,
  caf: CafFile,
  table: CheckedTable,
  sink?: (pcm: Int16Array, index: number) => void,
  yielder?: Yielder,
): Promise<number> {
  const dec = createDecoder(caf.desc.sampleRate);
  const n = table.sizes.length;
  let at = caf.audioOffset;
  let decoded = 0;
  for (let i = 0; i < n; i++) {
    const size = table.sizes[i];
    const packet = bytes.subarray(at, at + size);
    at += size;
    // TOC byte bit 2 = stereo. A mono decoder would silently downmix it, but a
    // file that says mono and carries stereo packets is not what it claims.
    if (packet[0] & 0x04) {
      throw new AudioRejected('packet_decode', `Opus packet ${i + 1} of ${n} is coded as stereo in a mono CAF`);
    }
    let pcm: Int16Array;
    try {
      pcm = decodePacket(dec, packet);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new AudioRejected('packet_decode', `Opus packet ${i + 1} of ${n} cannot be decoded (${why})`);
    }
    const want = table.frames(i);
    if (pcm.length !== want) {
      throw new AudioRejected(
        'packet_decode',
        `Opus packet ${i + 1} of ${n} decodes to ${pcm.length} frames but the CAF says ${want}`,
      );
    }
    decoded += pcm.length;
    sink?.(pcm, i);
    if ((i & 127) === 127 && yielder) await yielder();
  }
  return decoded;
}

export async function validateVoiceNoteCaf(bytes: Uint8Array, yielder?: Yielder): Promise<VoiceNoteCafInfo> {
  const caf = readCaf(bytes);
  checkOpusMono(caf);
  const table = checkPacketTable(caf);
  const rate = caf.desc.sampleRate;
  // Bounds first from the (now consistent) table: no point decoding 20 minutes
  // of packets to reject them. Decoding below then confirms every packet's length.
  checkDuration(table.valid / rate);
  const decoded = await decodeAllPackets(bytes, caf, table, undefined, yielder);
  const measured = decoded - table.priming - table.remainder;
  checkDuration(measured / rate);
  return {
    sampleRate: rate,
    framesPerPacket: caf.desc.framesPerPacket,
    numberPackets: table.sizes.length,
    numberValidFrames: measured,
    primingFrames: table.priming,
    remainderFrames: table.remainder,
    durationSeconds: measured / rate,
  };
}
