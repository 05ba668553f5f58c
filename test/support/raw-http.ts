/** Raw HTTP/1.1 on one connection: the responses as they came, for tests of pipelining and keep-alive. */

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** HTTP/1.1 responses (with Content-Length) as they came on one connection, in order. */
export function parseResponses(raw: string): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = raw;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return out;
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    const length = Number(headers['content-length'] ?? 0);
    const body = rest.slice(end + 4, end + 4 + length);
    if (body.length < length) return out;
    out.push({ status: Number(statusLine!.split(' ')[1]), headers, body });
    rest = rest.slice(end + 4 + length);
  }
}
