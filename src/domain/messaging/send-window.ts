/**
 * How long a send may still be under way on its line (LineDriver.sendWindowMs): a line that moves
 * files takes longer the larger they are, so the window is asked for with the send's files and
 * their bytes. A message not found on its line once its window is over never left (reconcile.ts).
 */
import type { LineDriver, OutboundFile, SendLoad } from '../../drivers/types.js';
import type { Message, Store } from '../../store/index.js';
import { MAX_UPLOAD_BYTES } from '../media/vocabulary.js';

/**
 * A file whose size cannot be read any more counts as the largest a send can carry: an upload is
 * at most MAX_UPLOAD_BYTES, and a staged voice note smaller still (a CAF passes through from a
 * source of at most 96 MiB; a WAV becomes a much smaller Opus CAF).
 */
const UNKNOWN_FILE_BYTES = MAX_UPLOAD_BYTES;

/** The load of files about to be sent. */
export const loadOfFiles = (files: readonly OutboundFile[]): SendLoad => ({ files: files.length, bytes: files.reduce((n, f) => n + f.sizeBytes, 0) });

/**
 * A recorded message's load: a media part carries its size (every outbound one since the first
 * release; else its attachment's row tells); a voice note's is on the staged note's row, which a
 * message naming it keeps (housekeeping deletes only unused ones).
 */
export async function loadOfMessage(store: Pick<Store, 'media'>, m: Message): Promise<SendLoad> {
  let files = 0;
  let bytes = 0;
  for (const p of m.parts) {
    if (p.type === 'media') {
      files++;
      if (p.size_bytes !== undefined) bytes += p.size_bytes;
      else {
        const a = await store.media.getAttachment(m.tenant_id, p.attachment_id);
        bytes += a?.size_bytes ?? a?.declared_size ?? UNKNOWN_FILE_BYTES;
      }
    } else if (p.type === 'voice_note') {
      files++;
      bytes += (await store.media.getVoiceNote(m.tenant_id, p.voice_note_id))?.size_bytes ?? UNKNOWN_FILE_BYTES;
    }
  }
  return { files, bytes };
}

/** When the line's longest send of `m` (carrying `load`) is over (epoch ms): not found on the line by then, it never left. */
export const sendWindowEnd = (m: Pick<Message, 'sent_at'>, driver: LineDriver, load: SendLoad): number => m.sent_at + driver.sendWindowMs(load);
