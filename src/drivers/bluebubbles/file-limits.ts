/**
 * How long a file may take between Blueline and the Mac.
 *
 * A file's body has an idle limit, not a total one (client.ts): a call fails when no bytes of it
 * moved for the line's timeout_ms, so a large file over a slow tunnel goes through. Its total is
 * still bounded: an upload must average MIN_FILE_BYTES_PER_SEC (after timeout_ms for the
 * connection and the first bytes), and no file transfer outlasts FILE_TRANSFER_CAP_MS, the 30
 * minutes BlueBubbles gives its own file routes (httpRoutes.ts: attachment upload and download).
 */
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
