/**
 * Environment → typed configuration. Fails fast with a message that names the
 * variable, so an operator sees at once what to fix.
 */
import { parse as parseConnectionString } from 'pg-connection-string';
import { isIP, isIPv6 } from 'node:net';
import path from 'node:path';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** postgres://… selects PostgreSQL; unset means SQLite in dataDir. */
  databaseUrl: string | undefined;
  /** PostgreSQL connections shared, pipelined, by prepared statements outside a transaction (0: they use the pool); unset: chosen by the server's synchronous_commit (db.ts). */
  pgPipelineConnections: number | undefined;
  /** Operator token; when unset one is generated and saved in dataDir. */
  adminToken: string | undefined;
  publicBaseUrl: string | undefined;
  /** The webhook's data.crm_deep_link, with {chat_id} and {tenant} filled in; unset → the chat's messages in this API. */
  deepLinkTemplate: string | undefined;
  allowPrivateNetworks: boolean;
  testClock: boolean;
  /**
   * Which peers' X-Forwarded-For names the client (fastify's trustProxy): the load balancers'
   * addresses or CIDR ranges, or a hop count; false (the default) trusts no one.
   */
  trustProxy: false | number | string[];
  /** On a first start with an empty store, create the demo sandbox (BLUELINE_DEMO; on by default). */
  demoSandbox: boolean;
  /** The `service` segment of header names such as x-service-signature. */
  headerBrand: string;
  /** base64 32-byte key for secrets at rest; unset → generated key file in dataDir. */
  masterKey: string | undefined;
  /** How long a rotated signing secret keeps working. */
  secretOverlapMs: number;
  /** Webhook delivery: per-attempt timeout and the delays before attempts 2 and 3. */
  webhookTimeoutMs: number;
  webhookBackoffMs: number[];
  /** How long a worker holds a claimed job; a crashed worker's jobs return after it. */
  webhookLeaseMs: number;
  /** SSE: connection lifetime and heartbeat interval. */
  sseMaxMs: number;
  sseHeartbeatMs: number;
  /** Safety-net polls behind the wake-ups (a lost wake-up waits at most this long). */
  ssePollMs: number;
  workerPollMs: number;
  /** A request body must arrive within this time; on the upload route, per window of this length at uploadMinBytesPerSec. */
  bodyTimeoutMs: number;
  uploadMinBytesPerSec: number;
  /** After SIGTERM/SIGINT, how long requests in flight may take before the process exits anyway (code 1). */
  shutdownGraceMs: number;
  /** Run the webhook delivery worker in this process. */
  deliveryWorker: boolean;
  /** Housekeeping deletes stored blobs no row names (BLUELINE_BLOB_SWEEP). */
  blobSweep: boolean;
  /** Run the inbound intake worker and BlueBubbles catch-up in this process. */
  inboundWorker: boolean;
  /** How long a process holds a stored webhook or a line's catch-up; a crashed holder's return after it. */
  inboundLeaseMs: number;
  /** BlueBubbles catch-up: how often each line's Mac is asked (service clock), how often while it is down, page size. */
  catchUpIntervalMs: number;
  catchUpRetryMs: number;
  catchUpPageSize: number;
  logLevel: string;
  /** Request lines (method, path, status, ms): every request, only 4xx/5xx, or none. */
  logRequests: 'all' | 'errors' | 'off';
  /** Where blobs live: `DATA_DIR/blobs`, or an S3-compatible bucket (BLUELINE_BLOB_URL=s3://bucket/prefix). */
  blobs: BlobConfig;
  /** Bearer token that opens GET /metrics; unset → /metrics does not exist (404). */
  metricsToken: string | undefined;
  /** The operator's HubSpot app; undefined when HUBSPOT_CLIENT_ID/SECRET are unset (the routes answer 404). */
  hubspot: HubSpotConfig | undefined;
  /** How often each tenant's HubSpot replies are pushed (business clock). */
  crmPushIntervalMs: number;
}

export interface HubSpotConfig {
  clientId: string;
  clientSecret: string;
  /** When set, card requests naming another appId are refused. */
  appId: string | undefined;
  /** Operator-set, hence trusted: not subject to the private-network guard. */
  apiBase: string;
  authBase: string;
  scopes: string;
}

function hubspotConfig(env: Env): HubSpotConfig | undefined {
  const clientId = secret(env, 'HUBSPOT_CLIENT_ID');
  const clientSecret = secret(env, 'HUBSPOT_CLIENT_SECRET');
  if (!clientId && !clientSecret) return undefined;
  if (!clientId || !clientSecret) throw new ConfigError('HUBSPOT_CLIENT_ID and HUBSPOT_CLIENT_SECRET go together: set both (or neither, to turn the HubSpot integration off)');
  return {
    clientId,
    clientSecret,
    appId: env.HUBSPOT_APP_ID || undefined,
    apiBase: baseUrl(env, 'HUBSPOT_API_BASE') ?? 'https://api.hubapi.com',
    authBase: baseUrl(env, 'HUBSPOT_AUTH_BASE') ?? 'https://app.hubspot.com',
    scopes: (env.HUBSPOT_SCOPES || 'oauth crm.objects.contacts.read crm.objects.contacts.write automation').trim().split(/\s+/).join(' '),
  };
}

export type BlobConfig =
  | { kind: 'fs' }
  | {
      kind: 's3';
      bucket: string;
      /** '' or ending in '/'. */
      prefix: string;
      /** The AWS SDK's standard variables; unset → the SDK's own defaults (AWS itself, its credential chain). */
      endpoint: string | undefined;
      region: string;
      pathStyle: boolean;
      credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | undefined;
      /** AWS_REQUEST_CHECKSUM_CALCULATION: WHEN_REQUIRED for stores that refuse the SDK's default trailing checksums. */
      checksums: 'WHEN_SUPPORTED' | 'WHEN_REQUIRED' | undefined;
    };

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be 1/0 or true/false, got "${raw}"`);
}

/** proxy-addr's names for ranges (what fastify's trustProxy takes besides addresses and CIDRs). */
const PROXY_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

/** Unset: false. A number of hops (1–16), or addresses, CIDR ranges and PROXY_RANGES, comma-separated. */
function trustProxy(env: Env, name: string): false | number | string[] {
  const raw = env[name]?.trim();
  if (!raw) return false;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops < 1 || hops > 16) throw new ConfigError(`${name} as a hop count must be 1–16, got "${raw}"`);
    return hops;
  }
  const entries = raw.split(',').map((e) => e.trim());
  for (const e of entries) {
    const [address, bits, extra] = e.split('/');
    const family = isIP(address ?? '');
    const bitsOk = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (!PROXY_RANGES.includes(e) && (family === 0 || !bitsOk || extra !== undefined)) {
      throw new ConfigError(`${name} must be a hop count, or load balancer addresses or CIDR ranges (e.g. 10.0.0.0/8,192.168.1.7), comma-separated; "${e}" is neither`);
    }
  }
  return entries;
}

function oneOf<T extends string>(env: Env, name: string, values: readonly T[]): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return values[0]!;
  if ((values as readonly string[]).includes(raw)) return raw as T;
  throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${raw}"`);
}

/**
 * Plain decimal digits only: Number() would also take "0x1F90", "8e3", " 80 " and "" (as 0),
 * each a typo that would otherwise start the service with a value nobody wrote.
 */
function int<F extends number | undefined>(env: Env, name: string, fallback: F, min: number, max: number): number | F {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= min && n <= max)) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max} (decimal digits only), got "${raw}"`);
  }
  return n;
}

/** Comma-separated milliseconds; spaces around the commas are allowed, empty entries are not (",," is a typo, not a 0). */
function backoffList(env: Env, name: string): number[] {
  const raw = env[name];
  if (raw === undefined || raw === '') return [1_000, 2_000];
  const entries = raw.split(',').map((x) => x.trim());
  const bad = entries.find((x) => !/^\d+$/.test(x) || Number(x) > 600_000);
  if (bad !== undefined) {
    const what = bad === '' ? 'an empty entry' : `"${bad}"`;
    throw new ConfigError(`${name} must be comma-separated milliseconds from 0 to 600000, e.g. 1000,2000; ${what} in "${raw}"`);
  }
  return entries.map(Number);
}

/**
 * A token, key or credential. Surrounding whitespace is dropped (a value read from a secret file
 * often ends in a newline; a client never sends it, so kept it would never match), as the
 * generated admin-token and master.key files are read; a value that is nothing but whitespace is
 * refused rather than taken for unset. Unset or empty: undefined.
 */
function secret(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = raw.trim();
  if (!value) throw new ConfigError(`${name} is set but blank (only whitespace); unset it or give it a value`);
  return value;
}

/** A token clients send as `Authorization: Bearer …`: no whitespace inside, at least `min` characters. */
function bearerToken(env: Env, name: string, min: number): string | undefined {
  const value = secret(env, name);
  if (value === undefined) return undefined;
  if (/[\s\x00-\x1f\x7f]/.test(value)) throw new ConfigError(`${name} must not contain whitespace or control characters`);
  if (value.length < min) throw new ConfigError(`${name} must be at least ${min} characters (e.g. openssl rand -hex 24)`);
  return value;
}

/**
 * An http(s) base URL that paths are appended to: scheme and host, optionally a port and a path
 * prefix; no query, fragment or credentials (they would end up in the middle of every URL built
 * on it). Trailing slashes are dropped. Unset or empty: undefined.
 */
function baseUrl(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const example = `, e.g. https://api.example.com or https://example.com/prefix`;
  if (!/^https?:\/\/[^/?#\s]/i.test(raw) || !URL.canParse(raw)) throw new ConfigError(`${name} must be an http(s) URL with a host${example}; got "${raw}"`);
  const url = new URL(raw);
  if (url.username || url.password) throw new ConfigError(`${name} must not contain credentials (user:password@)`);
  if (url.search || url.hash || /[?#]/.test(raw)) throw new ConfigError(`${name} must have no query (?…) or fragment (#…)${example}; got "${raw}"`);
  if (/\s/.test(raw)) throw new ConfigError(`${name} must not contain whitespace; got "${raw}"`);
  return raw.replace(/\/+$/, '');
}

/** `s3://bucket/prefix` → bucket and prefix (S3 bucket-name rules, so a typo fails here, not at the first upload). */
function blobConfig(env: Env): BlobConfig {
  const raw = env.BLUELINE_BLOB_URL;
  if (!raw) return { kind: 'fs' };
  const m = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(raw);
  if (!m || !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(m[1]!)) {
    throw new ConfigError(`BLUELINE_BLOB_URL must be s3://bucket or s3://bucket/prefix with a valid bucket name, got "${raw}"`);
  }
  const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix && !/^[A-Za-z0-9_.\/-]+$/.test(prefix)) throw new ConfigError('BLUELINE_BLOB_URL prefix may hold letters, digits, _ . / - only');
  const endpoint = env.AWS_ENDPOINT_URL_S3 ? baseUrl(env, 'AWS_ENDPOINT_URL_S3') : baseUrl(env, 'AWS_ENDPOINT_URL');
  const accessKeyId = secret(env, 'AWS_ACCESS_KEY_ID');
  const secretAccessKey = secret(env, 'AWS_SECRET_ACCESS_KEY');
  const sessionToken = secret(env, 'AWS_SESSION_TOKEN');
  if (!!accessKeyId !== !!secretAccessKey) throw new ConfigError('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together');
  const checksums = env.AWS_REQUEST_CHECKSUM_CALCULATION ? oneOf(env, 'AWS_REQUEST_CHECKSUM_CALCULATION', ['WHEN_SUPPORTED', 'WHEN_REQUIRED'] as const) : undefined;
  return {
    kind: 's3',
    bucket: m[1]!,
    prefix: prefix ? `${prefix}/` : '',
    endpoint,
    // A non-AWS endpoint rarely cares about the region, but the SDK refuses to sign without one.
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
    pathStyle: bool(env, 'BLUELINE_S3_PATH_STYLE', false),
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey, ...(sessionToken && { sessionToken }) } : undefined,
    checksums,
  };
}

export function loadConfig(env: Env = process.env): Config {
  // It holds the database password, so it is read like the other secrets.
  const databaseUrl = secret(env, 'DATABASE_URL');
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with postgres:// (unset it to use SQLite)');
  }
  if (databaseUrl) {
    // As the driver will read it; the value is never quoted back (it holds the password).
    try {
      parseConnectionString(databaseUrl);
    } catch {
      throw new ConfigError(
        'DATABASE_URL is not a valid URL (postgres://user:password@host:5432/database): check the port, and percent-encode any of : / ? # [ ] @ % in the user name or password',
      );
    }
  }
  const brand = (env.BLUELINE_HEADER_BRAND || 'service').toLowerCase();
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(brand)) {
    throw new ConfigError('BLUELINE_HEADER_BRAND must be lowercase letters, digits and dashes');
  }
  const publicBaseUrl = baseUrl(env, 'PUBLIC_BASE_URL');
  const deepLinkTemplate = env.BLUELINE_DEEP_LINK_TEMPLATE || undefined;
  if (deepLinkTemplate) {
    const sample = deepLinkTemplate.replaceAll('{chat_id}', 'chat').replaceAll('{tenant}', 'tenant');
    if (!deepLinkTemplate.includes('{chat_id}') || !/^https?:\/\//i.test(sample) || !URL.canParse(sample)) {
      throw new ConfigError('BLUELINE_DEEP_LINK_TEMPLATE must be an http(s) URL containing {chat_id}, e.g. https://crm.example.com/imessage/{chat_id}');
    }
  }
  const metricsToken = bearerToken(env, 'METRICS_TOKEN', 16);
  const bodyTimeoutMs = int(env, 'BLUELINE_BODY_TIMEOUT_MS', 30_000, 50, 600_000);
  return {
    port: int(env, 'PORT', 8787, 0, 65535),
    host: env.HOST || '127.0.0.1',
    dataDir: path.resolve(env.DATA_DIR || './data'),
    databaseUrl,
    pgPipelineConnections: int(env, 'BLUELINE_PG_PIPELINE_CONNECTIONS', undefined, 0, 64),
    adminToken: bearerToken(env, 'ADMIN_TOKEN', 16),
    publicBaseUrl,
    deepLinkTemplate,
    allowPrivateNetworks: bool(env, 'BLUELINE_ALLOW_PRIVATE_NETWORKS', false),
    testClock: bool(env, 'BLUELINE_TEST_CLOCK', false),
    demoSandbox: bool(env, 'BLUELINE_DEMO', true),
    trustProxy: trustProxy(env, 'BLUELINE_TRUST_PROXY'),
    headerBrand: brand,
    masterKey: secret(env, 'BLUELINE_MASTER_KEY'),
    secretOverlapMs: int(env, 'BLUELINE_SECRET_OVERLAP_HOURS', 24, 0, 24 * 90) * 3600_000,
    webhookTimeoutMs: int(env, 'BLUELINE_WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    webhookBackoffMs: backoffList(env, 'BLUELINE_WEBHOOK_BACKOFF_MS'),
    webhookLeaseMs: int(env, 'BLUELINE_WEBHOOK_LEASE_MS', 60_000, 500, 3_600_000),
    sseMaxMs: int(env, 'BLUELINE_SSE_MAX_MS', 60_000, 100, 3_600_000),
    sseHeartbeatMs: int(env, 'BLUELINE_SSE_HEARTBEAT_MS', 15_000, 10, 600_000),
    ssePollMs: int(env, 'BLUELINE_SSE_POLL_MS', 1_000, 10, 600_000),
    workerPollMs: int(env, 'BLUELINE_WORKER_POLL_MS', 500, 10, 600_000),
    bodyTimeoutMs,
    uploadMinBytesPerSec: int(env, 'BLUELINE_UPLOAD_MIN_BYTES_PER_SEC', 1_024, 1, 1_000_000_000),
    // Default: a JSON body allowed its whole BLUELINE_BODY_TIMEOUT_MS still gets answered.
    shutdownGraceMs: int(env, 'BLUELINE_SHUTDOWN_GRACE_MS', bodyTimeoutMs + 5_000, 100, 3_600_000),
    deliveryWorker: bool(env, 'BLUELINE_DELIVERY_WORKER', true),
    blobSweep: bool(env, 'BLUELINE_BLOB_SWEEP', true),
    inboundWorker: bool(env, 'BLUELINE_INBOUND_WORKER', true),
    inboundLeaseMs: int(env, 'BLUELINE_INBOUND_LEASE_MS', 120_000, 500, 3_600_000),
    catchUpIntervalMs: int(env, 'BLUELINE_CATCHUP_INTERVAL_MS', 300_000, 1_000, 86_400_000),
    catchUpRetryMs: int(env, 'BLUELINE_CATCHUP_RETRY_MS', 30_000, 100, 3_600_000),
    catchUpPageSize: int(env, 'BLUELINE_CATCHUP_PAGE_SIZE', 200, 1, 1_000),
    logLevel: oneOf(env, 'LOG_LEVEL', ['info', 'fatal', 'error', 'warn', 'debug', 'trace', 'silent'] as const),
    logRequests: oneOf(env, 'BLUELINE_LOG_REQUESTS', ['errors', 'all', 'off'] as const),
    blobs: blobConfig(env),
    metricsToken,
    hubspot: hubspotConfig(env),
    crmPushIntervalMs: int(env, 'BLUELINE_CRM_PUSH_INTERVAL_MS', 120_000, 100, 86_400_000),
  };
}

/**
 * Where clients reach this service, for absolute URLs it hands out (upload URLs, deep links): PUBLIC_BASE_URL,
 * else the listen address. A wildcard listen address is no address to reach, so loopback stands
 * in for it. Never taken from a request's Host header, which the caller controls.
 */
export function publicBaseUrl(config: Pick<Config, 'publicBaseUrl' | 'host' | 'port'>): string {
  if (config.publicBaseUrl) return config.publicBaseUrl;
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host === '::' ? '::1' : config.host;
  return `http://${isIPv6(host) ? `[${host}]` : host}:${config.port}`;
}
