/**
 * The line's `driver_config` for BlueBubbles:
 *   { "url": "https://mac.example.com:1234", "password": "…",
 *     "private_api": true, "timeout_ms": 30000 }
 * `private_api: false` turns the Private API features off even when the server
 * offers them; left out, the server's own report decides.
 */

export const DEFAULT_TIMEOUT_MS = 30_000;
const MIN_TIMEOUT_MS = 50;
const MAX_TIMEOUT_MS = 10 * 60_000;

export interface BlueBubblesConfig {
  /** Server base URL without a trailing slash (may carry a path prefix behind a proxy). */
  baseUrl: string;
  password: string;
  /** undefined: follow the server's report; false: never use the Private API. */
  privateApi?: boolean;
  timeoutMs: number;
}

/** What is wrong with a driver_config, in words an operator can act on (empty when it is fine). */
export function configProblems(raw: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const { url, password, private_api, timeout_ms } = raw;
  if (typeof url !== 'string' || url.trim() === '') {
    problems.push('driver_config.url is required (the BlueBubbles Server address, e.g. https://mac.example.com:1234)');
  } else {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url.trim());
    } catch {
      problems.push('driver_config.url is not a valid URL');
    }
    if (parsed && parsed.protocol !== 'http:' && parsed.protocol !== 'https:') problems.push('driver_config.url must be http or https');
    if (parsed && (parsed.username || parsed.password)) problems.push('driver_config.url must not carry credentials; put the password in driver_config.password');
    if (parsed && (parsed.search || parsed.hash)) problems.push('driver_config.url must not carry a query or fragment');
  }
  if (typeof password !== 'string' || password === '') problems.push('driver_config.password is required (the BlueBubbles Server password)');
  if (private_api !== undefined && typeof private_api !== 'boolean') problems.push('driver_config.private_api must be a boolean');
  if (timeout_ms !== undefined && (typeof timeout_ms !== 'number' || !Number.isFinite(timeout_ms) || timeout_ms < MIN_TIMEOUT_MS || timeout_ms > MAX_TIMEOUT_MS)) {
    problems.push(`driver_config.timeout_ms must be a number of milliseconds between ${MIN_TIMEOUT_MS} and ${MAX_TIMEOUT_MS}`);
  }
  return problems;
}

/** The parsed configuration, or the list of problems. Never throws. */
export function parseConfig(raw: Record<string, unknown>): { ok: true; config: BlueBubblesConfig } | { ok: false; problems: string[] } {
  const problems = configProblems(raw);
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    config: {
      baseUrl: (raw.url as string).trim().replace(/\/+$/, ''),
      password: raw.password as string,
      privateApi: raw.private_api as boolean | undefined,
      timeoutMs: (raw.timeout_ms as number | undefined) ?? DEFAULT_TIMEOUT_MS,
    },
  };
}
