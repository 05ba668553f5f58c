/**
 * The one error type of the audio module. `check` names which rule failed so
 * the service (and tests) can tell rejections apart without parsing text; the
 * message is plain words meant to be shown to the API caller as-is.
 */
export type AudioCheck =
  | 'mime_type' // mime_type outside the voice-note allowlist
  | 'mime_mismatch' // mime_type says one format, the bytes are another
  | 'format' // bytes are not CAF or WAV at all (MP3, Ogg, M4A, …)
  | 'wav_structure' // RIFF/WAVE chunks missing or malformed
  | 'wav_format' // WAV is compressed or uses an unsupported sample layout
  | 'caf_structure' // CAF header/chunks missing, malformed or truncated
  | 'codec' // CAF holds something other than Opus
  | 'channels' // not mono
  | 'sample_rate' // CAF sample rate is not one Opus can run at
  | 'packet_table' // pakt chunk inconsistent with the data chunk
  | 'packet_decode' // an Opus packet does not decode (or decodes to the wrong length)
  | 'duration'; // measured length outside 0.5–300 s

export class AudioRejected extends Error {
  override readonly name = 'AudioRejected';

  constructor(
    readonly check: AudioCheck,
    message: string,
  ) {
    super(message);
  }
}
