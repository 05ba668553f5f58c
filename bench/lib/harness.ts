/**
 * Benchmark plumbing: start the plain node:http baseline and a Blueline
 * process (each its own child, so the load generator has the other core),
 * load them at the same concurrency, print ratios. The load comes from wrk
 * when it is installed, else autocannon (BENCH_CLIENT=autocannon|wrk chooses);
 * each run also reports the CPU the server and the load generator used.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { processCpuSeconds, runWrk, tcpActiveOpens, wrkInstalled, type Request } from './wrk.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '..', '..');

export interface Proc {
  url: string;
  child: ChildProcess;
  dataDir?: string;
  stop(): Promise<void>;
}

async function waitForUrl(url: string, child: ChildProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`process exited with ${child.exitCode} before ${url} answered`);
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`${url} did not answer in ${timeoutMs} ms`);
}

function stopper(child: ChildProcess, dataDir?: string) {
  return async () => {
    if (child.exitCode === null) {
      const done = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await done;
    }
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  };
}

/** Plain node:http answering a JSON body of the given size: the ceiling on this machine. */
export async function startBaseline(port: number, body: string): Promise<Proc> {
  const src = `require('node:http').createServer((q,s)=>{s.writeHead(200,{'content-type':'application/json','content-length':Buffer.byteLength(${JSON.stringify(body)})});s.end(${JSON.stringify(body)})}).listen(${port},'127.0.0.1')`;
  const child = spawn(process.execPath, ['-e', src], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  await waitForUrl(url, child);
  return { url, child, stop: stopper(child) };
}

let built = false;
/** Builds once per run, so the bench measures the compiled service users run. */
function buildOnce() {
  // BENCH_NO_BUILD=1 measures dist/ as it is (a hand-patched experiment, a profile of an older build).
  if (built || process.env.BENCH_NO_BUILD) return;
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: repoRoot, stdio: 'inherit' });
  built = true;
}

/** Blueline as `npm start` runs it (dist/main.js), on a fresh data dir. */
export async function startBlueline(port: number, env: Record<string, string> = {}): Promise<Proc & { demo: { signing_secret: string; tenant: string; phone_line_ids: string[]; admin_token: string } }> {
  buildOnce();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-bench-'));
  // BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the service under the bench's load.
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, path.join(repoRoot, 'dist/main.js')], {
    cwd: repoRoot,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForUrl(`${url}/healthz`, child);
  const demoFile = path.join(dataDir, 'demo.json');
  // The file appears before its content is written: wait until it parses.
  const readDemo = () => {
    try {
      return JSON.parse(fs.readFileSync(demoFile, 'utf8'));
    } catch {
      return undefined;
    }
  };
  let demo = readDemo();
  for (let i = 0; i < 100 && !demo; i++) {
    await new Promise((r) => setTimeout(r, 100));
    demo = readDemo();
  }
  if (!demo) throw new Error(`no demo sandbox in ${demoFile}`);
  return { url, child, dataDir, demo, stop: stopper(child, dataDir) };
}

export type Client = 'wrk' | 'autocannon';

/** wrk when installed, unless BENCH_CLIENT says otherwise. */
export function chosenClient(): Client {
  const asked = process.env.BENCH_CLIENT;
  if (asked === 'wrk' || asked === 'autocannon') return asked;
  if (asked) throw new Error(`BENCH_CLIENT must be wrk or autocannon, not ${asked}`);
  if (wrkInstalled()) return 'wrk';
  warnFallbackOnce();
  return 'autocannon';
}

let warned = false;
/** Said once per run, before any figure: an autocannon figure is not comparable with wrk's. */
function warnFallbackOnce(): void {
  if (warned) return;
  warned = true;
  console.warn('wrk is not installed (apt-get install wrk): loading with autocannon, which runs in Node on the cores the server uses; its figures are lower and not comparable with bench/README.md');
}

/** Issue 21's PostgreSQL target: the PostgreSQL figure against SQLite's of the same run. */
export function reportPostgresRatio(what: string, postgres: number, sqlite: number): void {
  const ratio = postgres / sqlite;
  console.log(`postgres / sqlite ${what}: ${ratio.toFixed(2)}  ${ratio >= 0.5 ? 'meets' : 'MISSES'} target (≥ 0.5)`);
}

export interface LoadOptions extends Request {
  connections?: number;
  /** seconds */
  duration?: number;
  /** the server's process, to report the CPU it used during the run */
  server?: ChildProcess;
  client?: Client;
  /** wrk's threads (default 1: one core's worth of client, as autocannon in this process) */
  threads?: number;
  /** requests in flight per connection (default 1, as HTTP/1.1 clients of an API send them) */
  pipelining?: number;
}

export interface LoadResult {
  label: string;
  client: Client;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** CPU the server and the load generator used, in cores (CPU seconds per second of the run) */
  serverCores?: number;
  /** the server's main thread alone: near 1.0 means its event loop was the bottleneck */
  serverLoopCores?: number;
  /** the part of the main thread's time spent in the kernel (socket reads and writes, mostly) */
  serverLoopKernelCores?: number;
  clientCores: number;
  /** TCP connections opened on the machine during the run (≈ connections when they are reused) */
  connectionsOpened: number;
}

export async function load(label: string, opts: LoadOptions): Promise<LoadResult> {
  const client = opts.client ?? chosenClient();
  const connections = opts.connections ?? 32;
  const duration = opts.duration ?? 8;
  const serverPid = opts.server?.pid;
  const serverBefore = serverPid ? processCpuSeconds(serverPid) : 0;
  const loopBefore = serverPid ? processCpuSeconds(serverPid, true) : 0;
  const loopKernelBefore = serverPid ? processCpuSeconds(serverPid, true, true) : 0;
  const opensBefore = tcpActiveOpens();
  const started = process.hrtime.bigint();
  let result: Omit<LoadResult, 'label' | 'client' | 'serverCores' | 'serverLoopCores' | 'clientCores' | 'connectionsOpened'>;
  let clientCpuSeconds: number;
  if (client === 'wrk') {
    const r = await runWrk(opts, { connections, durationSeconds: duration, threads: opts.threads ?? 1, pipelining: opts.pipelining });
    result = { rps: r.rps, p50: r.p50, p99: r.p99, non2xx: r.non2xx, errors: r.errors };
    clientCpuSeconds = r.cpuSeconds;
  } else {
    // autocannon runs in this process, which does nothing else meanwhile.
    const cpuBefore = process.cpuUsage();
    const r = await autocannon({ url: opts.url, method: opts.method as autocannon.Request['method'], headers: opts.headers, body: opts.body, duration, connections, pipelining: opts.pipelining ?? 1 });
    const cpu = process.cpuUsage(cpuBefore);
    result = { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors + r.timeouts };
    clientCpuSeconds = (cpu.user + cpu.system) / 1e6;
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return {
    label,
    client,
    ...result,
    clientCores: clientCpuSeconds / seconds,
    serverCores: serverPid ? (processCpuSeconds(serverPid) - serverBefore) / seconds : undefined,
    serverLoopCores: serverPid ? (processCpuSeconds(serverPid, true) - loopBefore) / seconds : undefined,
    serverLoopKernelCores: serverPid ? (processCpuSeconds(serverPid, true, true) - loopKernelBefore) / seconds : undefined,
    connectionsOpened: tcpActiveOpens() - opensBefore,
  };
}

export function report(baseline: LoadResult, results: LoadResult[], targets: { minRatio: number; maxP99Ms: number }): boolean {
  const fmt = (r: LoadResult, ratio?: number) =>
    `${r.label.padEnd(34)} ${r.rps.toFixed(0).padStart(8)} req/s  p50 ${r.p50.toFixed(1).padStart(5)} ms  p99 ${r.p99.toFixed(1).padStart(5)} ms` +
    (ratio === undefined ? '' : `  ratio ${ratio.toFixed(2)}`) +
    (r.non2xx || r.errors ? `  (non-2xx ${r.non2xx}, errors ${r.errors})` : '');
  console.log(`load generator: ${baseline.client}`);
  console.log(fmt(baseline));
  let ok = true;
  for (const r of results) {
    const ratio = r.rps / baseline.rps;
    const pass = ratio >= targets.minRatio && r.p99 < targets.maxP99Ms && r.non2xx === 0 && r.errors === 0;
    ok &&= pass;
    console.log(fmt(r, ratio) + `  ${pass ? 'meets' : 'MISSES'} target (ratio ≥ ${targets.minRatio}, p99 < ${targets.maxP99Ms} ms)`);
  }
  // A figure measures the server when its event loop was saturated (main thread near 1.0) and the
  // load generator was not (well below 1.0): bench/README.md, "Which figure measures the server".
  console.log('\nCPU in cores (CPU seconds per second), and TCP connections opened on the machine during each run:');
  for (const r of [baseline, ...results]) {
    const cores = (c: number | undefined) => (c === undefined ? '   ?' : c.toFixed(2));
    console.log(`${r.label.padEnd(34)} server ${cores(r.serverCores)} (main thread ${cores(r.serverLoopCores)})  ${r.client} ${r.clientCores.toFixed(2)}  connections opened ${r.connectionsOpened}`);
  }
  // Per request, the main thread's CPU split into our code (user) and the kernel's (socket calls):
  // a send's kernel time per request can exceed the baseline's, as a slower server finds the client
  // asleep and wakes it on each answer.
  console.log('\nMain-thread CPU per request, µs (user + kernel):');
  for (const r of [baseline, ...results]) {
    if (r.serverLoopCores === undefined || r.serverLoopKernelCores === undefined || r.rps === 0) continue;
    const us = (c: number) => ((c / r.rps) * 1e6).toFixed(1).padStart(6);
    console.log(`${r.label.padEnd(34)} ${us(r.serverLoopCores - r.serverLoopKernelCores)} + ${us(r.serverLoopKernelCores)}`);
  }
  return ok;
}
