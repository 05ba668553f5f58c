// The S3-protocol test server ships no types; this is the part the tests use.
declare module '@20minutes/s3rver' {
  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory?: string;
    vhostBuckets?: boolean;
    configureBuckets?: { name: string }[];
  }
  export default class S3rver {
    constructor(options: S3rverOptions);
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
    /** Koa's middleware list (S3rver is a Koa app), composed when `run()` starts listening. */
    middleware: ((ctx: { headers: object; path: string }, next: () => Promise<unknown>) => unknown)[];
  }
}
