/**
 * The one error type of outbound HTTP. Callers (webhook worker, voice-note staging) switch on
 * `kind` and store `message`; messages name the host but never the path or query (webhook URLs
 * often carry tokens) and never any request header (signatures).
 */
export type NetErrorKind =
  | 'invalid_url' // not an absolute http(s) URL, or carries credentials
  | 'insecure_url' // http:// where https is required (also for redirect targets)
  | 'forbidden_address' // resolves to (or is) a non-public address
  | 'dns' // the name did not resolve
  | 'connection' // refused, reset, TLS failure, body cut short...
  | 'timeout' // no complete answer within the time budget
  | 'redirect' // too many redirects, or a redirect without a usable Location
  | 'http_status' // fetchBytes: a non-2xx final answer
  | 'too_large'; // fetchBytes: the body exceeds maxBytes

/** Said with every refusal of a private target, so a developer trying a local receiver knows the switch. */
export const ALLOW_PRIVATE_HINT = 'set BLUELINE_ALLOW_PRIVATE_NETWORKS=1 to allow private and loopback targets (local development)';

export class NetError extends Error {
  /** Wall time from the start of the call until it failed; set by the function that throws. */
  durationMs?: number;

  constructor(
    readonly kind: NetErrorKind,
    message: string,
    /** The HTTP status, for `http_status` and `redirect`. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'NetError';
  }

  /** Refused by this service's own URL policy, before any request: the same call later is refused the same way. */
  get refusedUrl(): boolean {
    return this.kind === 'forbidden_address' || this.kind === 'invalid_url' || this.kind === 'insecure_url';
  }
}
