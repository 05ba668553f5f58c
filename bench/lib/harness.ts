/**
 * Benchmark plumbing: start the plain node:http baseline and a Blueline
 * process (each its own child, so the load generator has the other core),
 * load them with autocannon at the same concurrency, print ratios.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

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
  if (built) return;
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

export interface LoadResult {
  label: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

export async function load(label: string, opts: autocannon.Options): Promise<LoadResult> {
  const r = await autocannon({ duration: 8, connections: 32, ...opts });
  return {
    label,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
}

export function report(baseline: LoadResult, results: LoadResult[], targets: { minRatio: number; maxP99Ms: number }): boolean {
  const fmt = (r: LoadResult, ratio?: number) =>
    `${r.label.padEnd(34)} ${r.rps.toFixed(0).padStart(8)} req/s  p50 ${String(r.p50).padStart(4)} ms  p99 ${String(r.p99).padStart(4)} ms` +
    (ratio === undefined ? '' : `  ratio ${ratio.toFixed(2)}`) +
    (r.non2xx || r.errors ? `  (non-2xx ${r.non2xx}, errors ${r.errors})` : '');
  console.log(fmt(baseline));
  let ok = true;
  for (const r of results) {
    const ratio = r.rps / baseline.rps;
    const pass = ratio >= targets.minRatio && r.p99 < targets.maxP99Ms && r.non2xx === 0 && r.errors === 0;
    ok &&= pass;
    console.log(fmt(r, ratio) + `  ${pass ? 'meets' : 'MISSES'} target (ratio ≥ ${targets.minRatio}, p99 < ${targets.maxP99Ms} ms)`);
  }
  return ok;
}
