/** The attachment resource: uploaded files (att_…) and inbound media (in_…). */
import { Type, type Static } from 'typebox';
import { DateTime, Nullable } from './common.js';

export const Attachment = Type.Object({
  attachment_id: Type.String({ description: 'att_… (uploaded) or in_… (inbound media)' }),
  content_type: Type.String({ description: 'lower case; inbound media may be generic (application/octet-stream)' }),
  size_bytes: Type.Integer({ minimum: 0 }),
  filename: Nullable(Type.String()),
  uploaded_at: Nullable(DateTime('null until the bytes arrive')),
  expires_at: DateTime('the slot expiry before upload; the end of retention after'),
});
export type Attachment = Static<typeof Attachment>;

export const AttachmentParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100, description: 'att_… or in_…' }) });

/** The Range header a download takes. */
export const RangeHeaders = Type.Object({
  range: Type.Optional(Type.String({ description: 'bytes=a-b, bytes=a- or bytes=-n: 206 with that part; 416 when it lies outside the file' })),
});

// A download answers with the file's own Content-Type (image/png, audio/ogg, …), so the
// document names the media range "*/*" (any type, binary) rather than one type a real answer
// would contradict.
export const FILE_RESPONSES = {
  200: { contentType: '*/*', description: 'the bytes, with the file\'s own Content-Type, Content-Length and (when it has one) a filename in Content-Disposition' },
  206: { contentType: '*/*', description: 'the range asked for (the file\'s own Content-Type)', headers: { 'Content-Range': 'bytes <first>-<last>/<size>' } },
  // The spec gives no code for it: the answer has no body, only the file's length (<size>).
  416: { description: 'the range lies outside the file: no body, no error code', headers: { 'Content-Range': 'bytes */<size>' } },
} as const;
