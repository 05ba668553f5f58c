/**
 * pino JSON logs. Credentials are redacted wherever they could appear: request
 * headers, bodies echoed into errors, driver configs and secret fields.
 */
import { pino, type Logger, type DestinationStream } from 'pino';

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-*-signature"]',
  'req.headers.cookie',
  'headers.authorization',
  '*.authorization',
  '*.signing_secret',
  '*.secret',
  '*.secrets',
  '*.password',
  '*.admin_token',
  '*.driver_config',
  'signing_secret',
  'secret',
  'password',
  'admin_token',
];

export function createLogger(opts: { level: string; brand?: string; stream?: DestinationStream }): Logger {
  const brand = opts.brand ?? 'service';
  const paths = REDACT_PATHS.map((p) => p.replace('x-*-signature', `x-${brand}-signature`)).concat([
    `req.headers["x-webhook-signature"]`,
  ]);
  return pino(
    { level: opts.level, redact: { paths, censor: '[redacted]' }, base: { svc: 'blueline' } },
    opts.stream,
  );
}
