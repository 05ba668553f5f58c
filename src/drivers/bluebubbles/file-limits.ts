/**
 * How long a file may take between Blueline and the Mac, and so how long a send may still be under
 * way (LineDriver.sendWindowMs).
 *
 * A file's body has an idle limit, not a total one (client.ts): a call fails when no bytes of it
 * moved for the line's timeout_ms, so a large file over a slow tunnel goes through. Its total is
 * still bounded: an upload must average MIN_FILE_BYTES_PER_SEC (after timeout_ms for the
 * connection and the first bytes), and no file transfer outlasts FILE_TRANSFER_CAP_MS, the 30
 * minutes BlueBubbles gives its own file routes (httpRoutes.ts: attachment upload and download).
 * The minimum average is what lets the send window grow with the bytes instead of being the cap
 * for every file: reconciliation fails a send not found on the Mac once its window is over, so
 * the window must cover the slowest upload the driver lets run, and a photo's should stay short.
 */
import type { SendLoad } from '../types.js';

export const FILE_TRANSFER_CAP_MS = 30 * 60_000;

/**
 * 32 KiB/s (256 kbit/s): far below any link that carries iMessage media (a tunnel to a Mac on
 * home broadband does megabits), so only a link all but dead is refused; it gives a 1 MiB photo
 * 32 s, and a file over ~56 MiB the cap.
 */
export const MIN_FILE_BYTES_PER_SEC = 32 * 1024;

/** BlueBubbles waits up to 60 s for Messages to confirm an attachment: an upload's answer, once its body is sent, gets twice the timeout. */
export const uploadAnswerMs = (timeoutMs: number): number => timeoutMs * 2;

const atMinimumRate = (bytes: number) => Math.ceil((bytes * 1000) / MIN_FILE_BYTES_PER_SEC);

/** The longest one upload's body may take to be sent: timeout_ms, then its bytes at the minimum rate; at most the cap. */
export const uploadBodyMs = (timeoutMs: number, bytes: number): number => Math.min(FILE_TRANSFER_CAP_MS, timeoutMs + atMinimumRate(bytes));

/**
 * The longest a send may take: every request it may make, each at its longest.
 * - server/info first, when the driver's copy is stale: timeout_ms;
 * - a text and then /chat/new (Messages had no chat with the person), a group's /chat/new, or the
 *   multipart send of grouped files: 2 × timeout_ms in all;
 * - each file's upload, body and answer, made up to twice for a lone file (over the Private API,
 *   then by AppleScript when Messages has no chat with the person) and three times for grouped
 *   files (to /attachment/upload, then one by one as a lone file when there is no chat). The
 *   bodies' limits summed are at most n × timeout_ms + all the bytes at the minimum rate, and at
 *   most n caps.
 */
export function sendWindowMs(timeoutMs: number, { files, bytes }: SendLoad): number {
  const requests = 3 * timeoutMs;
  if (files <= 0) return requests;
  const uploads = files === 1 ? 2 : 3;
  const bodies = Math.min(files * FILE_TRANSFER_CAP_MS, files * timeoutMs + atMinimumRate(bytes));
  return requests + uploads * (bodies + files * uploadAnswerMs(timeoutMs));
}
