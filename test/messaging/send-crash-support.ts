/** The service as a process on a data directory that outlives it: start, SIGKILL, start again. */
import fs from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { spawnService, untilReady } from '../support/server-process.js';
import { freePort } from '../support/ports.js';

export interface Demo {
  base_url: string;
  signing_secret: string;
  admin_token: string;
  phone_line_ids: string[];
}

export interface Running {
  child: ChildProcess;
  url: string;
  demo: Demo;
  api(method: string, p: string, body?: unknown): Promise<{ status: number; json: any }>;
  admin(method: string, p: string, body?: unknown): Promise<{ status: number; json: any }>;
  kill(): Promise<void>;
}

export async function startOn(dataDir: string, env: Record<string, string> = {}): Promise<Running> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawnService({ PORT: String(port), DATA_DIR: dataDir, BLUELINE_ALLOW_PRIVATE_NETWORKS: '1', ...env }, ['ignore', 'pipe', 'inherit']);
  // Its last log lines (warnings and up), read as they come, for a start that never gets ready.
  const lastLines: string[] = [];
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    lastLines.push(...chunk.split('\n').filter(Boolean));
    lastLines.splice(0, Math.max(0, lastLines.length - 20));
  });
  try {
    await untilReady(child, url);
  } catch (err) {
    throw new Error(`${(err as Error).message}; its last log lines:\n${lastLines.join('\n') || '(none)'}`);
  }
  const demo = JSON.parse(fs.readFileSync(path.join(dataDir, 'demo.json'), 'utf8')) as Demo;
  const call = (token: string) => async (method: string, p: string, body?: unknown) => {
    const res = await fetch(url + p, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : undefined };
  };
  return {
    child,
    url,
    demo,
    api: call(demo.signing_secret),
    admin: call(demo.admin_token),
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

export async function until<T>(get: () => Promise<T>, ok: (v: T) => boolean, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await get();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out; last: ${JSON.stringify(v).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
