/** The configuration of blob storage and metrics: what an operator sets, and the refusals that name the variable. */
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
});
