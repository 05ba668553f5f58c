/** The configuration: what an operator sets, and the refusals that name the variable (and the bad value). */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('configuration', () => {
  it('keeps blobs on disk unless BLUELINE_BLOB_URL names a bucket', () => {
    expect(loadConfig({}).blobs).toEqual({ kind: 'fs' });
    expect(
      loadConfig({
        BLUELINE_BLOB_URL: 's3://media.example/prod/blueline/',
        AWS_ENDPOINT_URL: 'https://minio.internal:9000',
        AWS_ACCESS_KEY_ID: 'AKID',
        AWS_SECRET_ACCESS_KEY: 'secret',
        BLUELINE_S3_PATH_STYLE: '1',
      }).blobs,
    ).toEqual({
      kind: 's3', bucket: 'media.example', prefix: 'prod/blueline/', endpoint: 'https://minio.internal:9000', region: 'us-east-1', pathStyle: true,
      credentials: { accessKeyId: 'AKID', secretAccessKey: 'secret' }, checksums: undefined,
    });
    // The S3-specific endpoint wins over the general one; no credentials → the SDK's own chain.
    const s3 = loadConfig({ BLUELINE_BLOB_URL: 's3://bucket', AWS_ENDPOINT_URL: 'https://a', AWS_ENDPOINT_URL_S3: 'https://b', AWS_REGION: 'eu-west-1' }).blobs;
    expect(s3).toMatchObject({ bucket: 'bucket', prefix: '', endpoint: 'https://b', region: 'eu-west-1', pathStyle: false, credentials: undefined });
  });

  it('sweeps stored files no row names unless BLUELINE_BLOB_SWEEP=0', () => {
    expect(loadConfig({}).blobSweep).toBe(true);
    expect(loadConfig({ BLUELINE_BLOB_SWEEP: '0' }).blobSweep).toBe(false);
  });

  it('refuses a malformed bucket URL, half a key pair, or a short metrics token, naming the variable', () => {
    const refused = (env: Record<string, string>, what: RegExp) => {
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(what);
    };
    refused({ BLUELINE_BLOB_URL: 'https://bucket/prefix' }, /BLUELINE_BLOB_URL/);
    refused({ BLUELINE_BLOB_URL: 's3://Bad_Bucket/x' }, /BLUELINE_BLOB_URL/);
    refused({ BLUELINE_BLOB_URL: 's3://bucket', AWS_ACCESS_KEY_ID: 'AKID' }, /AWS_SECRET_ACCESS_KEY/);
    refused({ BLUELINE_BLOB_URL: 's3://bucket', AWS_ENDPOINT_URL_S3: 'minio:9000' }, /AWS_ENDPOINT_URL/);
    refused({ METRICS_TOKEN: 'short' }, /METRICS_TOKEN/);
    expect(loadConfig({ METRICS_TOKEN: 'a-long-enough-token-123' }).metricsToken).toBe('a-long-enough-token-123');
  });

  const refused = (env: Record<string, string>, ...what: RegExp[]) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    for (const w of what) expect(() => loadConfig(env)).toThrow(w);
  };

  it('refuses a DATABASE_URL the driver cannot read, without quoting its password', () => {
    for (const ok of ['postgres://u:p%23w@db:5432/blueline', 'postgresql:///blueline?host=/var/run/postgresql', 'postgres://[::1]:5432/db']) {
      expect(loadConfig({ DATABASE_URL: ok }).databaseUrl).toBe(ok);
    }
    for (const bad of ['postgres://u:s3cret@127.0.0.1:notaport/db', 'postgres://u:s3cret@127.0.0.1:99999/db', 'postgres://u:s3cret@[::1/db', 'postgres://u:s3#cret@db/blueline']) {
      refused({ DATABASE_URL: bad }, /DATABASE_URL is not a valid URL/, /percent-encode/);
      expect(() => loadConfig({ DATABASE_URL: bad })).not.toThrow(/s3#?cret/);
    }
    refused({ DATABASE_URL: 'mysql://db/x' }, /postgres:\/\//);
  });

  it('takes a base URL only as http(s)://host[:port][/prefix], without query, fragment or credentials', () => {
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://api.example.com:8443/blueline/' }).publicBaseUrl).toBe('https://api.example.com:8443/blueline');
    expect(loadConfig({ PUBLIC_BASE_URL: 'http://10.0.0.5:8787' }).publicBaseUrl).toBe('http://10.0.0.5:8787');
    // new URL() takes "api.example.com:" for a scheme: upload_url would have been "api.example.com:8443/api/v1/…".
    for (const bad of ['api.example.com:8443', 'api.example.com', 'ftp://api.example.com', 'https://', 'https:///x', '//api.example.com', 'https://api.example.com/?q=1', 'https://api.example.com/#top', 'https://user:pw@api.example.com', ' https://api.example.com']) {
      refused({ PUBLIC_BASE_URL: bad }, /PUBLIC_BASE_URL/);
    }
    refused({ PUBLIC_BASE_URL: 'api.example.com:8443' }, /http\(s\)/, /"api\.example\.com:8443"/);
    refused({ PUBLIC_BASE_URL: 'https://x/?q=1' }, /no query/);
    // The other base URLs paths are appended to: HubSpot's bases and the S3 endpoint.
    const hubspot = { HUBSPOT_CLIENT_ID: 'id', HUBSPOT_CLIENT_SECRET: 'secret' };
    expect(loadConfig({ ...hubspot, HUBSPOT_API_BASE: 'http://127.0.0.1:9999/' }).hubspot?.apiBase).toBe('http://127.0.0.1:9999');
    refused({ ...hubspot, HUBSPOT_API_BASE: 'api.hubapi.com' }, /HUBSPOT_API_BASE/);
    refused({ ...hubspot, HUBSPOT_API_BASE: 'https://api.hubapi.com?x=1' }, /HUBSPOT_API_BASE/);
    refused({ ...hubspot, HUBSPOT_AUTH_BASE: 'https://u:p@app.hubspot.com' }, /HUBSPOT_AUTH_BASE/);
    refused({ BLUELINE_BLOB_URL: 's3://bucket', AWS_ENDPOINT_URL_S3: 'https://minio:9000/?x' }, /AWS_ENDPOINT_URL_S3/);
    refused({ BLUELINE_BLOB_URL: 's3://bucket', AWS_ENDPOINT_URL: 'minio:9000' }, /AWS_ENDPOINT_URL\b/);
  });

  it('drops whitespace around tokens and secrets (a secret file\'s newline), and refuses blank ones', () => {
    const metrics = 'a-long-enough-token-123';
    expect(loadConfig({ METRICS_TOKEN: `${metrics}\n` }).metricsToken).toBe(metrics);
    expect(loadConfig({ ADMIN_TOKEN: `  admin-token-0123456\r\n` }).adminToken).toBe('admin-token-0123456');
    const key = 'q6Kx0bYbM5wEt0yqJv0bX3mXc1hN7tJw1m3i9p2fV0s=';
    expect(loadConfig({ BLUELINE_MASTER_KEY: `${key}\n` }).masterKey).toBe(key);
    expect(loadConfig({ DATABASE_URL: 'postgres://u:p@db/blueline\n' }).databaseUrl).toBe('postgres://u:p@db/blueline');
    expect(loadConfig({ HUBSPOT_CLIENT_ID: 'id\n', HUBSPOT_CLIENT_SECRET: ' secret\n' }).hubspot).toMatchObject({ clientId: 'id', clientSecret: 'secret' });
    expect(loadConfig({ BLUELINE_BLOB_URL: 's3://bucket', AWS_ACCESS_KEY_ID: 'AKID\n', AWS_SECRET_ACCESS_KEY: 'sk\n', AWS_SESSION_TOKEN: 'st\n' }).blobs).toMatchObject({
      credentials: { accessKeyId: 'AKID', secretAccessKey: 'sk', sessionToken: 'st' },
    });
    // Sixteen spaces are not a token of sixteen characters; a blank value is no way to unset one.
    refused({ METRICS_TOKEN: ' '.repeat(16) }, /METRICS_TOKEN/, /blank/);
    refused({ ADMIN_TOKEN: '\n' }, /ADMIN_TOKEN/, /blank/);
    refused({ BLUELINE_MASTER_KEY: '  ' }, /BLUELINE_MASTER_KEY/);
    refused({ HUBSPOT_CLIENT_ID: 'id', HUBSPOT_CLIENT_SECRET: ' \n' }, /HUBSPOT_CLIENT_SECRET/);
    // Still at least 16 characters once trimmed; a bearer token has no whitespace inside.
    refused({ METRICS_TOKEN: ' short-token-123 \n' }, /METRICS_TOKEN/, /16/);
    refused({ METRICS_TOKEN: 'a-long-enough token-123' }, /METRICS_TOKEN/, /whitespace/);
    refused({ ADMIN_TOKEN: 'admin\ttoken-0123456789' }, /ADMIN_TOKEN/);
    // The token that controls every tenant is no shorter than the one that reads the metrics.
    refused({ ADMIN_TOKEN: 'admin-token-012' }, /ADMIN_TOKEN/, /16/);
  });

  it('takes numbers as plain decimal digits only, naming the variable and the bad value', () => {
    expect(loadConfig({ PORT: '8443' }).port).toBe(8443);
    for (const bad of ['0x1F90', '8e3', ' 8080', '8080 ', '+80', '80.0', '-1', '1_000', '８０']) {
      refused({ PORT: bad }, /PORT/, new RegExp(`"${bad.replace(/[.+]/g, '\\$&')}"`));
    }
    refused({ BLUELINE_WORKER_POLL_MS: '5e2' }, /BLUELINE_WORKER_POLL_MS/);
    expect(loadConfig({ BLUELINE_WEBHOOK_BACKOFF_MS: '500, 1500 ,3000' }).webhookBackoffMs).toEqual([500, 1500, 3000]);
    expect(loadConfig({ BLUELINE_WEBHOOK_BACKOFF_MS: '0' }).webhookBackoffMs).toEqual([0]);
    // An empty entry was a 0 ("," → [0, 0]): a retry at once that nobody asked for.
    for (const bad of [',', '1000,,2000', ' ', '1000,', ',1000']) {
      refused({ BLUELINE_WEBHOOK_BACKOFF_MS: bad }, /BLUELINE_WEBHOOK_BACKOFF_MS/, /empty entry/);
    }
    for (const [bad, entry] of [['1000,0x10', '0x10'], ['1e3,2000', '1e3'], ['1000,-5', '-5'], ['1000,700000', '700000']]) {
      refused({ BLUELINE_WEBHOOK_BACKOFF_MS: bad! }, /BLUELINE_WEBHOOK_BACKOFF_MS/, new RegExp(`"${entry}" in "${bad}"`));
    }
  });

  it('gives requests in flight the body timeout and 5 s more after SIGTERM, unless BLUELINE_SHUTDOWN_GRACE_MS says otherwise', () => {
    expect(loadConfig({}).shutdownGraceMs).toBe(35_000);
    expect(loadConfig({ BLUELINE_BODY_TIMEOUT_MS: '60000' }).shutdownGraceMs).toBe(65_000);
    expect(loadConfig({ BLUELINE_SHUTDOWN_GRACE_MS: '2000' }).shutdownGraceMs).toBe(2_000);
    refused({ BLUELINE_SHUTDOWN_GRACE_MS: '10s' }, /BLUELINE_SHUTDOWN_GRACE_MS/);
    refused({ BLUELINE_SHUTDOWN_GRACE_MS: '0' }, /BLUELINE_SHUTDOWN_GRACE_MS/);
  });
});
