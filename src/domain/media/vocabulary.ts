/**
 * Media's words and limits, with no dependencies: what the domain checks and the contract
 * (src/contract/) declares as enums and bounds come from here, so the two cannot drift.
 */

/** 100 MB per file (MiB, so a file a user calls "100 MB" fits). */
export const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;

/** The declared upload types the spec supports (anything else is 5003). */
export const SUPPORTED_UPLOAD_TYPES = [
  'image/jpeg', 'image/png', 'image/gif', 'image/heic', 'image/heif', 'image/webp',
  'video/mp4', 'video/quicktime',
  'audio/mpeg', 'audio/m4a', 'audio/wav', 'audio/aac',
  'application/pdf',
] as const;
export type UploadType = (typeof SUPPORTED_UPLOAD_TYPES)[number];

/** A staged voice note's source types (spec: staging). */
export const VOICE_NOTE_MIME_TYPES = ['audio/caf', 'audio/wav', 'audio/x-wav'] as const;
export type VoiceNoteMimeType = (typeof VOICE_NOTE_MIME_TYPES)[number];

/** MIME types are case-insensitive (RFC 2045): compared, stored and reported in lower case. */
export const normalizeMimeType = (type: string) => type.trim().toLowerCase();
