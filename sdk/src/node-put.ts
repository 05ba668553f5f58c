/**
 * A streamed request body sent with node:http(s), honouring backpressure. Node 20's fetch reads
 * a request body stream as fast as it can produce chunks, whatever the socket takes, so a fast
 * source (a local file) ends up whole in memory; this writes a chunk only when the socket
 * drained. Used for uploads on Node when no custom `fetch` was given; browsers use fetch.
 */
export async function nodeStreamingFetch(url: string, init: RequestInit): Promise<Response> {
  const target = new URL(url);
  const http = target.protocol === 'https:' ? await import('node:https') : await import('node:http');
  const headers = init.headers as Record<string, string>;
  const body = init.body as unknown as ReadableStream<Uint8Array> | Uint8Array | ArrayBuffer;
  return new Promise<Response>((resolve, reject) => {
    const req = http.request(target, { method: init.method, headers, signal: init.signal ?? undefined }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : String(v));
        const status = res.statusCode ?? 502;
        resolve(new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), { status, statusText: res.statusMessage, headers: h }));
      });
    });
    req.on('error', reject);
    void (async () => {
      try {
        if (body instanceof Uint8Array || body instanceof ArrayBuffer) {
          req.end(body instanceof ArrayBuffer ? new Uint8Array(body) : body);
          return;
        }
        for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
          if (!req.write(chunk)) await new Promise<void>((r, j) => {
            const off = () => {
              req.off('drain', ok);
              req.off('close', closed);
            };
            const ok = () => (off(), r());
            const closed = () => (off(), j(new Error('connection closed during upload')));
            req.once('drain', ok);
            req.once('close', closed);
          });
        }
        req.end();
      } catch (err) {
        req.destroy(err as Error);
      }
    })();
  });
}
