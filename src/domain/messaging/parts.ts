/** Validation of `message.parts[]` for chat routes (spec rules 1–8 of chat messages). */
import { DomainError } from '../../errors/registry.js';
import type { OutboundFile } from '../../drivers/types.js';
import { GROUPABLE_IMAGE_TYPES, MAX_PARTS, assertNoUrl, assertText } from './rules.js';

/**
 * One part as a caller gives it: any field may be missing, and a missing one is refused here
 * with the part named (1003), as the spec's chat rules say. The field names are the request's:
 * parts are recorded as given in the idempotency identity.
 */
export interface PartInput {
  type: 'text' | 'media' | 'link' | 'rich_link';
  value?: string;
  attachment_id?: string;
  url?: string;
}

export interface ValidParts {
  texts: { index: number; value: string }[];
  media: { index: number; attachmentId: string }[];
  richLinks: { index: number; url: string }[];
}

/**
 * The fields each part type takes besides `type`. A field of another type's (a caption as `value`
 * on a media part) would be dropped silently, so it is refused like an unknown field (1002).
 * A media part's `url` is there to be refused as a mix with attachment_id (1011).
 */
const PART_FIELDS: Record<PartInput['type'], readonly string[]> = {
  text: ['value'],
  media: ['attachment_id', 'url'],
  link: ['url', 'value'],
  rich_link: ['url'],
};

/** Checks shape and order rules; missing fields are 1003 on chat routes (spec rule 8). */
export function validateParts(parts: PartInput[], opts: { firstTouch: boolean; group: boolean; parallel?: boolean }): ValidParts {
  if (parts.length === 0) throw new DomainError(1003, 'message.parts must have at least one part');
  if (parts.length > MAX_PARTS) throw new DomainError(1006, `message has ${parts.length} parts; the maximum is ${MAX_PARTS}`);
  const out: ValidParts = { texts: [], media: [], richLinks: [] };
  parts.forEach((p, index) => {
    const prev = parts[index - 1];
    const stray = PART_FIELDS[p.type] && Object.keys(p).find((k) => k !== 'type' && !PART_FIELDS[p.type].includes(k));
    if (stray) {
      const hint = p.type === 'media' && stray === 'value' ? ': a caption is a text part of its own, before or after the media' : '';
      throw new DomainError(1002, `${p.type} part ${index} takes no ${stray}${hint}`, p.type === 'media' ? { attachmentIndex: index } : {});
    }
    if (p.type === 'text') {
      // A blank value is as missing as an empty one (this route's missing-field code is 1003).
      if (typeof p.value !== 'string' || p.value.trim() === '') throw new DomainError(1003, `text part ${index} is missing value`);
      if (prev?.type === 'text') throw new DomainError(1008, `parts ${index - 1} and ${index} are consecutive text parts; join them into one`);
      assertText(`text part ${index}`, p.value);
      if (opts.firstTouch) assertNoUrl(`text part ${index}`, p.value);
      out.texts.push({ index, value: p.value });
    } else if (p.type === 'media') {
      if (p.url !== undefined && p.attachment_id !== undefined) {
        throw new DomainError(1011, `media part ${index} mixes url and attachment_id`, { attachmentIndex: index });
      }
      if (!p.attachment_id) throw new DomainError(1003, `media part ${index} is missing attachment_id`, { attachmentIndex: index });
      if (opts.group && opts.firstTouch) {
        throw new DomainError(1002, 'a group cannot be created with media: create it with text first, then send media', { attachmentIndex: index });
      }
      out.media.push({ index, attachmentId: p.attachment_id });
    } else if (p.type === 'link' || p.type === 'rich_link') {
      const url = p.url ?? (p.type === 'link' ? p.value : undefined);
      if (!url) throw new DomainError(1003, `${p.type} part ${index} is missing url`);
      if (opts.firstTouch) {
        throw new DomainError(1005, opts.group ? 'a group cannot be created with links: create it with text first' : 'the first message in a new chat cannot contain URLs');
      }
      out.richLinks.push({ index, url });
    } else {
      throw new DomainError(1002, `part ${index} has unknown type "${(p as { type: string }).type}"`);
    }
  });
  if (opts.parallel) {
    if (out.media.length < 2) {
      throw new DomainError(1002, 'parallel_attachments needs 2 or more media parts; with one image, omit the flag');
    }
    // The images go as one group, so a part between two of them has no place in the order asked:
    // refused rather than moved (docs/decisions.md, "Grouped images keep the parts' order").
    const first = out.media[0]!.index;
    const last = out.media[out.media.length - 1]!.index;
    const between = parts.findIndex((p, i) => i > first && i < last && p.type !== 'media');
    if (between !== -1) {
      throw new DomainError(
        1002,
        `part ${between} (${parts[between]!.type}) is between grouped images; with parallel_attachments the images go as one group: put it before or after them, or omit the flag to send every part in order`,
      );
    }
  }
  return out;
}

/** Grouped delivery takes images only; mismatches name the offending part. */
export function assertGroupable(files: OutboundFile[], media: ValidParts['media']): void {
  files.forEach((f, i) => {
    if (!GROUPABLE_IMAGE_TYPES.includes(f.mimeType)) {
      throw new DomainError(1002, `parallel_attachments groups images only; part ${media[i]!.index} is ${f.mimeType}`, { attachmentIndex: media[i]!.index });
    }
  });
}
