/** Validation of `message.parts[]` for chat routes (spec rules 1–8 of chat messages). */
import { ApiError } from '../../errors/registry.js';
import type { OutboundFile } from '../../drivers/types.js';
import { GROUPABLE_IMAGE_TYPES, MAX_PARTS, MAX_TEXT_LENGTH, containsUrl } from './rules.js';

export type PartInput =
  | { type: 'text'; value?: string }
  | { type: 'media'; attachment_id?: string; url?: string }
  | { type: 'link'; url?: string; value?: string }
  | { type: 'rich_link'; url?: string };

export interface ValidParts {
  texts: { index: number; value: string }[];
  media: { index: number; attachmentId: string }[];
  richLinks: { index: number; url: string }[];
}

/** Checks shape and order rules; missing fields are 1003 on chat routes (spec rule 8). */
export function validateParts(parts: PartInput[], opts: { firstTouch: boolean; group: boolean; parallel?: boolean }): ValidParts {
  if (parts.length === 0) throw new ApiError(1003, 'message.parts must have at least one part');
  if (parts.length > MAX_PARTS) throw new ApiError(1006, `message has ${parts.length} parts; the maximum is ${MAX_PARTS}`);
  const out: ValidParts = { texts: [], media: [], richLinks: [] };
  parts.forEach((p, index) => {
    const prev = parts[index - 1];
    if (p.type === 'text') {
      if (typeof p.value !== 'string' || p.value.length === 0) throw new ApiError(1003, `text part ${index} is missing value`);
      if (prev?.type === 'text') throw new ApiError(1008, `parts ${index - 1} and ${index} are consecutive text parts; join them into one`);
      if (p.value.length > MAX_TEXT_LENGTH) throw new ApiError(1009, `text part ${index} is ${p.value.length} characters; the maximum is ${MAX_TEXT_LENGTH}`);
      if (opts.firstTouch && containsUrl(p.value)) throw new ApiError(1005, 'the first message in a new chat cannot contain URLs');
      out.texts.push({ index, value: p.value });
    } else if (p.type === 'media') {
      if (p.url !== undefined && p.attachment_id !== undefined) {
        throw new ApiError(1011, `media part ${index} mixes url and attachment_id`, { attachment_index: index });
      }
      if (!p.attachment_id) throw new ApiError(1003, `media part ${index} is missing attachment_id`, { attachment_index: index });
      if (opts.group && opts.firstTouch) {
        throw new ApiError(1002, 'a group cannot be created with media: create it with text first, then send media', { attachment_index: index });
      }
      out.media.push({ index, attachmentId: p.attachment_id });
    } else if (p.type === 'link' || p.type === 'rich_link') {
      const url = p.url ?? (p.type === 'link' ? p.value : undefined);
      if (!url) throw new ApiError(1003, `${p.type} part ${index} is missing url`);
      if (opts.firstTouch) {
        throw new ApiError(1005, opts.group ? 'a group cannot be created with links: create it with text first' : 'the first message in a new chat cannot contain URLs');
      }
      out.richLinks.push({ index, url });
    } else {
      throw new ApiError(1002, `part ${index} has unknown type "${(p as { type: string }).type}"`);
    }
  });
  if (opts.parallel) {
    if (out.media.length < 2) {
      throw new ApiError(1002, 'parallel_attachments needs 2 or more media parts; with one image, omit the flag');
    }
  }
  return out;
}

/** Grouped delivery takes images only; mismatches name the offending part. */
export function assertGroupable(files: OutboundFile[], media: ValidParts['media']): void {
  files.forEach((f, i) => {
    if (!GROUPABLE_IMAGE_TYPES.includes(f.mimeType)) {
      throw new ApiError(1002, `parallel_attachments groups images only; part ${media[i]!.index} is ${f.mimeType}`, { attachment_index: media[i]!.index });
    }
  });
}
