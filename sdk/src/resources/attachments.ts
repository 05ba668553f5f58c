import { openSource, uploadContentTypeOf, type UploadSource } from '../sources.js';
import type { Attachment, UploadSlot, UploadSlotRequest } from '../types.js';
import { Resource, seg, type CallOptions } from './base.js';

export interface UploadOptions extends CallOptions {
  /** Default: the file's or File's name. */
  filename?: string;
  /** Default: the Blob's type when the API takes it, else the one the filename's extension names (`uploadContentTypeOf`). */
  contentType?: UploadSlotRequest['content_type'];
  /** Required for a ReadableStream or async iterable (the API needs Content-Length). */
  size?: number;
}

export interface Download {
  /** The bytes, streamed: pipe them, never buffer a large file. */
  body: ReadableStream<Uint8Array>;
  contentType: string | null;
  /** Content-Length of this answer (of the range, for a Range request). */
  size: number | null;
  filename: string | null;
  /** 200, or 206 for a range. */
  status: number;
  response: Response;
}

export class Attachments extends Resource {
  /** `POST /api/v1/attachments`: an upload slot (15 minutes). `upload()` does this and the PUT. */
  createSlot(params: UploadSlotRequest, opts: CallOptions = {}): Promise<UploadSlot> {
    return this.core.request({ method: 'POST', path: '/api/v1/attachments', json: params, retry: 'unsafe', ...opts });
  }

  /**
   * Slot + streamed PUT in one call: a path (Node), Blob/File, bytes, or a ReadableStream with
   * `size`. The bytes are streamed with the slot's own upload token, never held in memory.
   * Returns the attachment; use its `attachment_id` in sends and parts.
   */
  async upload(source: UploadSource, opts: UploadOptions = {}): Promise<Attachment> {
    // The wire's snake_case names (createSlot takes content_type) are easy to pass here from plain
    // JavaScript, where nothing checks them: silently ignored, the type would come from the name.
    for (const wire of ['content_type', 'size_bytes'] as const) {
      if (wire in opts) throw new TypeError(`upload takes \`${wire === 'content_type' ? 'contentType' : 'size'}\`, not \`${wire}\``);
    }
    const opened = await openSource(source, opts.size);
    const filename = opts.filename ?? opened.filename;
    if (!filename) throw new TypeError('upload needs a `filename` for this source');
    // A type the API does not take is declared all the same: the API refuses it (5003) naming its types.
    const contentType = (opts.contentType ?? uploadContentTypeOf({ name: filename, type: opened.contentType }) ?? opened.contentType) as UploadSlotRequest['content_type'] | undefined;
    if (!contentType) throw new TypeError(`upload needs a \`contentType\` (none known for ${filename})`);
    const { signal, timeoutMs } = opts;
    const slot = await this.createSlot({ filename, content_type: contentType, size_bytes: opened.size }, { signal, timeoutMs });
    let attempt = 0;
    const res = await this.core.request<{ attachment: Attachment }>({
      method: 'PUT',
      path: `/api/v1/attachments/${seg(slot.attachment_id)}/upload`,
      url: slot.upload_url,
      bearer: bearerOf(slot.required_headers.authorization),
      headers: { 'content-type': slot.required_headers['content-type'] },
      body: async () => ({ body: await (attempt++ === 0 || !opened.reopen ? opened.first() : opened.reopen()), length: opened.size }),
      // A second PUT to a slot whose first one was stored is 1012: only repeat what never got there.
      retry: 'unsafe',
      timeoutMs: timeoutMs ?? 0,
      signal,
    });
    return res.attachment;
  }

  /** `GET /api/v1/attachments/{id}`: metadata of an uploaded or inbound (`in_…`) attachment. */
  async get(attachmentId: string, opts: CallOptions = {}): Promise<Attachment> {
    const res = await this.core.request<{ attachment: Attachment }>({ method: 'GET', path: `/api/v1/attachments/${seg(attachmentId)}`, retry: 'idempotent', ...opts });
    return res.attachment;
  }

  /**
   * `GET /api/v1/attachments/{id}/content`, streamed; `range` e.g. `bytes=0-1023` (206). A range
   * that lies outside the file throws `RangeNotSatisfiableError` (416; its `size` is the file's).
   */
  async download(attachmentId: string, opts: CallOptions & { range?: string } = {}): Promise<Download> {
    const res = await this.core.request<Response>({
      method: 'GET',
      path: `/api/v1/attachments/${seg(attachmentId)}/content`,
      headers: opts.range ? { range: opts.range } : {},
      retry: 'idempotent',
      raw: true,
      signal: opts.signal,
      timeoutMs: opts.timeoutMs ?? 0,
    });
    const length = res.headers.get('content-length');
    return {
      body: res.body ?? new ReadableStream({ start: (c) => c.close() }),
      contentType: res.headers.get('content-type'),
      size: length === null ? null : Number(length),
      filename: filenameOf(res.headers.get('content-disposition')),
      status: res.status,
      response: res,
    };
  }
}

function bearerOf(authorization: string): string {
  return authorization.replace(/^Bearer\s+/i, '');
}

function filenameOf(disposition: string | null): string | null {
  if (!disposition) return null;
  const star = /filename\*=UTF-8''([^;]+)/i.exec(disposition);
  if (star) {
    try {
      return decodeURIComponent(star[1]!);
    } catch {
      /* fall through to the plain form */
    }
  }
  return /filename="?([^";]+)"?/i.exec(disposition)?.[1] ?? null;
}
