/**
 * pino JSON logs. Credentials are redacted wherever they could appear: request
 * headers, bodies echoed into errors, driver configs and secret fields.
 */
import { pino, type Logger, type DestinationStream } from 'pino';

/**
 * Exact paths are cheap; each wildcard costs on every line, so only the
 * one-level ones that catch a secret nested in a logged object remain. Request
 * headers are never logged by our request line; the header paths guard errors
 * that carry a request.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-*-signature"]',
  'req.headers["x-webhook-signature"]',
  'req.headers.cookie',
  'signing_secret',
  'secret',
  'password',
  'admin_token',
  'driver_config',
  '*.signing_secret',
  '*.secret',
  '*.password',
  '*.driver_config',
];

const LOG_FLUSH_MS = 250;

export function createLogger(opts: { level: string; brand?: string; stream?: DestinationStream }): Logger {
  const brand = opts.brand ?? 'service';
  const paths = REDACT_PATHS.map((p) => p.replace('x-*-signature', `x-${brand}-signature`));
  // Without a given stream: stdout, buffered (4 KiB) so a busy server does not make one write
  // per line; a quiet one still shows every line within a quarter second, and flushLogs()
  // drains the rest on shutdown.
  let stream = opts.stream;
  if (!stream) {
    const stdout = pino.destination({ dest: 1, sync: false, minLength: 4096 });
    setInterval(() => {
      try {
        stdout.flush();
      } catch {
        /* a write in progress: the next tick flushes */
      }
    }, LOG_FLUSH_MS).unref();
    stream = stdout;
  }
  return pino({ level: opts.level, redact: { paths, censor: '[redacted]' }, base: { svc: 'blueline' } }, stream);
}

export function flushLogs(logger: Logger): Promise<void> {
  return new Promise((resolve) => logger.flush(() => resolve()));
}
