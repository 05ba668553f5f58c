import type { Body } from './core.js';
import type { UploadSlotRequest } from './types.js';

/**
 * What `attachments.upload` and `voiceNotes.stage` accept, turned into a body that can be opened
 * again for a retry. A path (Node only) and a Blob are streamed, never read whole; a
 * ReadableStream or async iterable is streamed once (so it is not retried) and needs its size.
 */
export type UploadSource = string | Blob | ArrayBuffer | Uint8Array | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

export interface OpenedSource {
  size: number;
  filename?: string;
  contentType?: string;
  /** A new body for each attempt; null when the source can only be read once. */
  reopen: (() => Promise<Body>) | null;
  first: () => Promise<Body>;
}

const MIME_BY_EXTENSION: Record<string, string> = {
  jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', gif: 'image/gif', heic: 'image/heic', heif: 'image/heif', webp: 'image/webp',
  mp4: 'video/mp4', mov: 'video/quicktime', mp3: 'audio/mpeg', m4a: 'audio/m4a', wav: 'audio/wav', aac: 'audio/aac', pdf: 'application/pdf',
  caf: 'audio/caf',
};

export function contentTypeOf(filename: string | undefined): string | undefined {
  const ext = filename?.split('.').pop()?.toLowerCase();
  return ext ? MIME_BY_EXTENSION[ext] : undefined;
}

export type UploadContentType = UploadSlotRequest['content_type'];

/** The types an attachment may be declared as; the API refuses any other (5003). */
export const UPLOAD_CONTENT_TYPES = [
  'image/jpeg', 'image/png', 'image/gif', 'image/heic', 'image/heif', 'image/webp',
  'video/mp4', 'video/quicktime', 'audio/mpeg', 'audio/m4a', 'audio/wav', 'audio/aac', 'application/pdf',
] as const satisfies readonly UploadContentType[];
// Each type the API's schema lists is in the list above: a new one fails this line until added.
const everyType: [Exclude<UploadContentType, (typeof UPLOAD_CONTENT_TYPES)[number]>] extends [never] ? true : never = true;
void everyType;

const isUploadType = (t: string | undefined): t is UploadContentType => (UPLOAD_CONTENT_TYPES as readonly (string | undefined)[]).includes(t);

/** For a file input's `accept`: the types, and the extensions that name them (browsers type no .heic). */
export const UPLOAD_ACCEPT = [...UPLOAD_CONTENT_TYPES, ...Object.keys(MIME_BY_EXTENSION).filter((ext) => isUploadType(MIME_BY_EXTENSION[ext])).map((ext) => `.${ext}`)].join(',');

/**
 * The type an upload declares for a file: its own when the API takes it, else the one its
 * extension names. Browsers type some files by other names than the API's (Chromium and Safari
 * say audio/x-m4a for .m4a, some say audio/mp3 or image/jpg), and none for .heic.
 * Undefined when neither is a type the API takes.
 */
export function uploadContentTypeOf(file: { name?: string; type?: string }): UploadContentType | undefined {
  if (isUploadType(file.type)) return file.type;
  const byName = contentTypeOf(file.name);
  return isUploadType(byName) ? byName : undefined;
}

export async function openSource(source: UploadSource, size?: number): Promise<OpenedSource> {
  if (typeof source === 'string') {
    // A file path: Node's fs, loaded only here so that browsers never see it.
    const fs = await import('node:fs');
    const path = await import('node:path');
    const stat = await fs.promises.stat(source);
    if (!stat.isFile()) throw new TypeError(`${source} is not a file`);
    const open = async () => fileStream(await fs.promises.open(source, 'r'));
    return { size: stat.size, filename: path.basename(source), reopen: open, first: open };
  }
  if (typeof Blob !== 'undefined' && source instanceof Blob) {
    const open = async () => source.stream() as unknown as Body;
    return { size: source.size, filename: (source as { name?: string }).name || undefined, contentType: source.type || undefined, reopen: open, first: open };
  }
  if (source instanceof ArrayBuffer || source instanceof Uint8Array) {
    const open = async () => source as Body;
    return { size: source.byteLength, reopen: open, first: open };
  }
  if (size === undefined || !Number.isSafeInteger(size) || size <= 0) {
    throw new TypeError('a stream upload needs its `size` in bytes (the API requires Content-Length)');
  }
  const stream =
    typeof (source as ReadableStream).getReader === 'function'
      ? (source as ReadableStream<Uint8Array>)
      : ReadableStream.from(source as AsyncIterable<Uint8Array>);
  let used = false;
  return {
    size,
    reopen: null,
    first: async () => {
      if (used) throw new TypeError('this stream was already read');
      used = true;
      return stream as unknown as Body;
    },
  };
}

/** Base64 of a whole source (voice notes are small: at most 300 s of ~32 kbit/s audio). */
export async function base64Of(source: UploadSource): Promise<string> {
  const whole = typeof source === 'string' || source instanceof Blob || source instanceof ArrayBuffer || source instanceof Uint8Array;
  const body = whole
    ? await (await openSource(source)).first()
    : typeof (source as ReadableStream).getReader === 'function'
      ? (source as ReadableStream<Uint8Array>)
      : ReadableStream.from(source as AsyncIterable<Uint8Array>);
  const bytes = new Uint8Array(await new Response(body as Body).arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

type FileHandle = Awaited<ReturnType<typeof import('node:fs').promises.open>>;

/**
 * A file as a pull stream, one 64 KiB read per pull. (Node 20's `Readable.toWeb` ignores
 * backpressure and would read a whole file into memory ahead of a slow upload.)
 */
function fileStream(fh: FileHandle): Body {
  const CHUNK = 64 * 1024;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const buf = new Uint8Array(CHUNK);
          const { bytesRead } = await fh.read(buf, 0, CHUNK, null);
          if (bytesRead === 0) {
            await fh.close();
            controller.close();
          } else controller.enqueue(buf.subarray(0, bytesRead));
        } catch (err) {
          await fh.close().catch(() => undefined);
          controller.error(err);
        }
      },
      async cancel() {
        await fh.close().catch(() => undefined);
      },
    },
    { highWaterMark: 1 },
  ) as unknown as Body;
}
