import { base64Of, type UploadSource } from '../sources.js';
import type { StageVoiceNoteRequest, StagedVoiceNote } from '../types.js';
import { Resource, type CallOptions } from './base.js';

/** Exactly one audio source: a file (path, Blob, bytes, stream), an https URL, or base64. */
export type VoiceNoteSource = { file: UploadSource; url?: never; base64?: never } | { url: string; file?: never; base64?: never } | { base64: string; file?: never; url?: never };

export type StageOptions = VoiceNoteSource & Omit<StageVoiceNoteRequest, 'audio_url' | 'audio_base64'>;

export class VoiceNotes extends Resource {
  /**
   * `POST /api/v1/voice-notes`: stage PCM WAV or Opus CAF as a native voice note. Send it with
   * `messages.send({ phone, phone_line_id: staged.phone_line_id, voice_note: { voice_note_id } })`.
   */
  async stage(params: StageOptions, opts: CallOptions = {}): Promise<StagedVoiceNote> {
    const { file, url, base64, ...rest } = params as { file?: UploadSource; url?: string; base64?: string } & Record<string, unknown>;
    const given = [file, url, base64].filter((x) => x !== undefined).length;
    if (given !== 1) throw new TypeError('voiceNotes.stage needs exactly one of file, url, base64');
    const json = { ...rest, ...(url !== undefined ? { audio_url: url } : { audio_base64: base64 ?? (await base64Of(file!)) }) };
    return this.core.request({ method: 'POST', path: '/api/v1/voice-notes', json, retry: 'unsafe', ...opts });
  }
}
