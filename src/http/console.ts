/**
 * The web console, served by the service itself at /console (same origin as the API, so its
 * session cookie is SameSite=Strict and no CORS is needed). The build (console/dist) is read
 * into memory at start: a few hundred KB, gzipped once. Hashed assets are immutable for a
 * year; every other path under /console is the single-page app's index.html (never cached),
 * with a Content-Security-Policy that allows no inline script.
 */
import { readdir, readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

interface Asset {
  body: Buffer;
  gzip: Buffer | undefined;
  type: string;
  immutable: boolean;
}

/** console/dist next to the package, from src/http or dist/http alike. */
export const defaultConsoleRoot = () => path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../console/dist');

async function load(root: string): Promise<Map<string, Asset>> {
  const assets = new Map<string, Asset>();
  async function walk(dir: string) {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else {
        const body = await readFile(full);
        const ext = path.extname(entry.name);
        const type = TYPES[ext] ?? 'application/octet-stream';
        const compressible = /text|javascript|json|svg/.test(type) && body.length > 1024;
        const rel = path.relative(root, full).split(path.sep).join('/');
        // Vite names built assets by content hash (assets/index-3f2a1b.js).
        assets.set(rel, { body, type, gzip: compressible ? gzipSync(body, { level: 9 }) : undefined, immutable: rel.startsWith('assets/') });
      }
    }
  }
  await walk(root);
  return assets;
}

function send(req: FastifyRequest, reply: FastifyReply, a: Asset) {
  reply.header('content-type', a.type).header('x-content-type-options', 'nosniff').header('vary', 'accept-encoding');
  reply.header('cache-control', a.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
  if (a.gzip && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) return reply.header('content-encoding', 'gzip').send(a.gzip);
  return reply.send(a.body);
}

export async function registerConsole(app: FastifyInstance, opts: { root?: string } = {}): Promise<void> {
  const root = opts.root ?? defaultConsoleRoot();
  const assets = existsSync(path.join(root, 'index.html')) ? await load(root) : new Map<string, Asset>();
  const index = assets.get('index.html');

  const handler = async (req: FastifyRequest<{ Params: { '*'?: string } }>, reply: FastifyReply) => {
    reply.header('content-security-policy', CONSOLE_CSP).header('x-frame-options', 'DENY').header('referrer-policy', 'same-origin');
    if (!index) {
      return reply.code(503).type('text/plain; charset=utf-8').send('The console is not built: run `npm run build` at the repository root.\n');
    }
    const rel = req.params['*'] ?? '';
    const asset = assets.get(rel);
    if (asset && rel !== 'index.html') return send(req, reply, asset);
    // A missing hashed asset is a 404 (an old tab after a deploy), not the app's HTML.
    if (rel.startsWith('assets/')) return reply.code(404).type('text/plain; charset=utf-8').send('not found\n');
    return send(req, reply, index);
  };
  const config = { auth: 'none' as const };
  app.get('/console', { config, schema: { hide: true } }, (_req, reply) => reply.redirect('/console/'));
  app.get('/console/*', { config, schema: { hide: true } }, handler);
}
