/**
 * Load from wrk (a C load generator) when it is installed.
 *
 * On two cores the load generator takes CPU the server would otherwise have.
 * autocannon runs in Node and needs about as much CPU per request as a small
 * Node server does, so it holds the baseline down more than the service and
 * shrinks the ratios between them; wrk needs a fraction of that (bench/README.md
 * has the measurements). The request (method, headers, body) goes in a Lua
 * script; the figures come from wrk's own report with --latency.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile, execFileSync } from 'node:child_process';

export interface Request {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface WrkResult {
  rps: number;
  /** milliseconds */
  p50: number;
  p99: number;
  requests: number;
  /** responses outside 2xx/3xx */
  non2xx: number;
  /** connect, read, write errors and timeouts */
  errors: number;
  /** CPU seconds wrk used (user + system), from the kernel's accounting of the finished child */
  cpuSeconds: number;
}

let installed: boolean | undefined;
export function wrkInstalled(): boolean {
  if (installed === undefined) {
    try {
      execFileSync('wrk', ['--version'], { stdio: 'ignore' });
      installed = true;
    } catch (err) {
      // wrk --version prints its banner and exits 1; only a missing binary is ENOENT.
      installed = (err as NodeJS.ErrnoException).code !== 'ENOENT';
    }
  }
  return installed;
}

/** A Lua string literal for any text (long brackets, with a level the text does not contain). */
function luaString(s: string): string {
  let eq = '';
  while (s.includes(`]${eq}]`)) eq += '=';
  return `[${eq}[${s}]${eq}]`;
}

function script(req: Request, pipelining: number): string {
  const lines = [`wrk.method = ${luaString(req.method ?? 'GET')}`];
  if (req.body !== undefined) lines.push(`wrk.body = ${luaString(req.body)}`);
  // The spaces matter: "[[[" would open a long string.
  for (const [k, v] of Object.entries(req.headers ?? {})) lines.push(`wrk.headers[ ${luaString(k)} ] = ${luaString(v)}`);
  if (pipelining > 1) {
    // wrk's documented way to pipeline: each write is `pipelining` requests back to back.
    lines.push(
      'local batch',
      `init = function(args) local r = {} for i = 1, ${pipelining} do r[i] = wrk.format() end batch = table.concat(r) end`,
      'request = function() return batch end',
    );
  }
  return lines.join('\n') + '\n';
}

/** "812.00us", "1.23ms", "2.01s", "3.5m" → milliseconds */
function ms(text: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text);
  if (!m) throw new Error(`unexpected wrk duration: ${text}`);
  const scale = { us: 0.001, ms: 1, s: 1000, m: 60_000 }[m[2] as 'us' | 'ms' | 's' | 'm'];
  return Number(m[1]) * scale;
}

export function parseWrk(out: string): Omit<WrkResult, 'cpuSeconds'> {
  const num = (re: RegExp) => Number(re.exec(out)?.[1] ?? 0);
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out)?.[1];
  const p50 = /^\s+50%\s+(\S+)/m.exec(out)?.[1];
  const p99 = /^\s+99%\s+(\S+)/m.exec(out)?.[1];
  if (!rps || !p50 || !p99) throw new Error(`could not read wrk's report:\n${out}`);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    rps: Number(rps),
    p50: ms(p50),
    p99: ms(p99),
    requests: num(/(\d+) requests in/),
    non2xx: num(/Non-2xx or 3xx responses: (\d+)/),
    errors: socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0,
  };
}

export async function runWrk(req: Request, opts: { connections: number; durationSeconds: number; threads: number; pipelining?: number }): Promise<WrkResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blueline-wrk-'));
  const lua = path.join(dir, 'request.lua');
  fs.writeFileSync(lua, script(req, opts.pipelining ?? 1));
  // wrk runs under a shell that, once wrk has been waited for, prints its own /proc stat:
  // fields 16 and 17 (cutime, cstime) are then exactly the CPU wrk used.
  const args = ['-t', String(opts.threads), '-c', String(opts.connections), '-d', `${opts.durationSeconds}s`, '--timeout', '5s', '--latency', '-s', lua, req.url];
  try {
    const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) =>
      execFile('sh', ['-c', 'wrk "$@"; rc=$?; cat /proc/$$/stat >&2; exit $rc', 'sh', ...args], (err, stdout, stderr) =>
        err ? reject(new Error(`wrk failed: ${err.message}\n${stderr}`)) : resolve({ stdout, stderr }),
      ),
    );
    const errLines = stderr.trim().split('\n');
    const stat = errLines.pop()!;
    // wrk reports a script error on stderr and then loads the server with a plain GET anyway.
    if (errLines.some((l) => l.trim())) throw new Error(`wrk complained:\n${errLines.join('\n')}`);
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After ") ": field 3 is index 0, so cutime (16) and cstime (17) are indexes 13 and 14.
    const cpuSeconds = (Number(fields[13]) + Number(fields[14])) / clockTicks();
    return { ...parseWrk(stdout), cpuSeconds };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

let ticks: number | undefined;
/** The kernel's clock ticks per second (CLK_TCK), the unit of /proc CPU times. */
export function clockTicks(): number {
  ticks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  return ticks;
}

/**
 * CPU seconds (user + system) a live process has used so far, from /proc/<pid>/stat;
 * with `mainThreadOnly`, its main thread's (the event loop's) from /proc/<pid>/task/<pid>/stat.
 */
export function processCpuSeconds(pid: number, mainThreadOnly = false, kernelOnly = false): number {
  const stat = fs.readFileSync(mainThreadOnly ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime, stime: the kernel's share is mostly the socket writes (on loopback, the client's side too)
  return ((kernelOnly ? 0 : Number(fields[11])) + Number(fields[12])) / clockTicks();
}

/** TCP connections this machine has opened so far (all processes: a rough count on a shared machine). */
export function tcpActiveOpens(): number {
  const snmp = fs.readFileSync('/proc/net/snmp', 'utf8').split('\n').filter((l) => l.startsWith('Tcp:'));
  const names = snmp[0]!.split(/\s+/);
  const values = snmp[1]!.split(/\s+/);
  return Number(values[names.indexOf('ActiveOpens')]);
}
