/**
 * The HTTP request counter and latency histogram, kept as plain numbers per route, method and
 * status class, and written out in the Prometheus text format at scrape time. prom-client's own
 * children validate and hash their labels on every observation (about 2.5 µs a request here);
 * this costs an array index and three additions, so metrics stay off the hot path's bill.
 */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface Cell {
  method: string;
  route: string;
  statusClass: string;
  count: number;
  sum: number;
  /** Non-cumulative counts per bucket; the last one is +Inf. */
  buckets: number[];
}

const escape = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

export function httpStats(names: { requests: string; duration: string }) {
  const cells: Cell[] = [];

  /**
   * The recorder of one route template: its cells are found once per method and status class.
   * `methods` (the route's own) get their 5xx counter at 0 now: a counter series that is born at
   * its first increment is invisible to rate() and increase() (there is no earlier sample to
   * rise from), so without it the first 5xx burst of a route on a process would never alert.
   */
  function route(template: string, methods: readonly string[] = []) {
    const byMethod = new Map<string, (Cell | undefined)[]>();
    const cellOf = (method: string, c: number) => {
      let classes = byMethod.get(method);
      if (!classes) byMethod.set(method, (classes = []));
      let cell = classes[c];
      if (!cell) {
        cell = classes[c] = { method, route: template, statusClass: `${c}xx`, count: 0, sum: 0, buckets: new Array(BUCKETS.length + 1).fill(0) };
        cells.push(cell);
      }
      return cell;
    };
    for (const m of methods) cellOf(m, 5);
    return (method: string, status: number, elapsedMs: number) => {
      const cell = cellOf(method, Math.floor(status / 100));
      const seconds = elapsedMs / 1000;
      let i = 0;
      while (i < BUCKETS.length && seconds > BUCKETS[i]!) i++;
      cell.buckets[i]!++;
      cell.count++;
      cell.sum += seconds;
    };
  }

  function render(): string {
    const labels = (c: Cell) => `method="${escape(c.method)}",route="${escape(c.route)}",status_class="${c.statusClass}"`;
    const out = [
      `# HELP ${names.requests} HTTP requests answered, by method, route template (unmatched for no route) and status class`,
      `# TYPE ${names.requests} counter`,
      ...cells.map((c) => `${names.requests}{${labels(c)}} ${c.count}`),
      `# HELP ${names.duration} Time to answer an HTTP request (open event streams are blueline_sse_connections instead)`,
      `# TYPE ${names.duration} histogram`,
    ];
    for (const c of cells) {
      // A zero counter (above) needs no histogram: no request of it has been timed yet.
      if (c.count === 0) continue;
      const l = labels(c);
      let cumulative = 0;
      BUCKETS.forEach((le, i) => {
        cumulative += c.buckets[i]!;
        out.push(`${names.duration}_bucket{${l},le="${le}"} ${cumulative}`);
      });
      out.push(`${names.duration}_bucket{${l},le="+Inf"} ${c.count}`, `${names.duration}_sum{${l}} ${c.sum}`, `${names.duration}_count{${l}} ${c.count}`);
    }
    return out.join('\n') + '\n';
  }

  return { route, render };
}
