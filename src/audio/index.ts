/**
 * Voice-note audio for POST /api/v1/voice-notes.
 *
 * `prepareVoiceNote` is the one entry point the service uses: it finds out
 * what the bytes really are, refuses anything that is not Opus-in-CAF or
 * uncompressed WAV (or that contradicts its mime_type), converts WAV, and
 * validates the final CAF. Failures are `AudioRejected` with a `check` name
 * and a message fit for the API caller (the route maps them to 502 / 3004).
 */
import { readCaf } from './caf.js';
import { cooperativeYielder } from './cooperative.js';
import { AudioRejected } from './errors.js';
import { FORMAT_LABEL, sniffAudio } from './sniff.js';
import { wavToOpusCaf } from './transcode.js';
import { checkOpusMono, checkPacketTable, decodeAllPackets, validateVoiceNoteCaf } from './validate.js';

export { AudioRejected, type AudioCheck } from './errors.js';
export { validateVoiceNoteCaf, MIN_DURATION_S, MAX_DURATION_S, type VoiceNoteCafInfo } from './validate.js';
export { readCaf, writeOpusCaf, kAudioChannelLayoutTag_Mono, type CafFile, type CafDescription, type CafPacketTable } from './caf.js';
export { parseWav, readWavMono, type WavInfo } from './wav.js';
export { sniffAudio, type SniffedFormat } from './sniff.js';
export { wavToOpusCaf, wavToPcm24k } from './transcode.js';
export { OPUS_RATE, OPUS_FRAME, OPUS_BITRATE } from './opus.js';

export type VoiceNoteMimeType = 'audio/caf' | 'audio/wav' | 'audio/x-wav';

export interface PreparedVoiceNote {
  /** The CAF to stage: the caller's own bytes when they were valid CAF, else ours. */
  caf: Buffer;
  transcoded: boolean;
  /** Measured from the audio: valid frames / sample rate. */
  durationSeconds: number;
}

const MIME_FORMAT: Record<VoiceNoteMimeType, 'caf' | 'wav'> = {
  'audio/caf': 'caf',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
};

const ACCEPTED = 'only Opus-in-CAF or uncompressed PCM WAV are accepted';

function describe(kind: ReturnType<typeof sniffAudio>): string {
  return kind === 'unknown' ? 'not a recognised audio format' : `${FORMAT_LABEL[kind]} audio`;
}

export async function prepareVoiceNote(bytes: Buffer, mimeType?: VoiceNoteMimeType): Promise<PreparedVoiceNote> {
  if (mimeType !== undefined && !(mimeType in MIME_FORMAT)) {
    throw new AudioRejected('mime_type', `mime_type ${String(mimeType)} is not accepted for voice notes; use audio/caf, audio/wav or audio/x-wav`);
  }
  const kind = sniffAudio(bytes);
  const declared = mimeType ? MIME_FORMAT[mimeType] : undefined;

  if (kind !== 'caf' && kind !== 'wav') {
    if (mimeType) {
      throw new AudioRejected('mime_mismatch', `bytes are ${describe(kind)} but mime_type is ${mimeType}; ${ACCEPTED} (convert to PCM WAV first)`);
    }
    throw new AudioRejected('format', `bytes are ${describe(kind)}; ${ACCEPTED} (convert to PCM WAV first)`);
  }
  if (declared && declared !== kind) {
    throw new AudioRejected('mime_mismatch', `bytes are a ${FORMAT_LABEL[kind]} file but mime_type is ${mimeType}`);
  }

  const yielder = cooperativeYielder();
  if (kind === 'caf') {
    // A CAF is never transcoded: either it already is a valid voice note or it is refused.
    const info = await validateVoiceNoteCaf(bytes, yielder);
    return { caf: bytes, transcoded: false, durationSeconds: info.durationSeconds };
  }
  const caf = await wavToOpusCaf(bytes, yielder);
  // Our own output goes through the same gate as a caller's CAF.
  const info = await validateVoiceNoteCaf(caf, yielder);
  return { caf, transcoded: true, durationSeconds: info.durationSeconds };
}

export interface DecodedVoiceNote {
  /** Mono samples with priming and remainder trimmed: exactly numberValidFrames long. */
  samples: Int16Array;
  sampleRate: number;
}

/** Decode an Opus-in-CAF voice note to PCM (for tests, the simulator, and round-trip checks). */
export async function decodeCafToPcm(bytes: Uint8Array): Promise<DecodedVoiceNote> {
  const caf = readCaf(bytes);
  checkOpusMono(caf);
  const table = checkPacketTable(caf);
  const samples = new Int16Array(table.valid);
  // Decoded frame k of the stream is valid frame k − priming.
  let pos = -table.priming;
  await decodeAllPackets(bytes, caf, table, (pcm) => {
    const from = Math.max(0, -pos);
    const to = Math.min(pcm.length, table.valid - pos);
    if (to > from) samples.set(pcm.subarray(from, to), pos + from);
    pos += pcm.length;
  });
  return { samples, sampleRate: caf.desc.sampleRate };
}
