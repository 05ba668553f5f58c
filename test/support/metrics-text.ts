/** Reading a Prometheus text scrape in tests. */
import { spawnSync } from 'node:child_process';

/** The sum of the samples of `name` whose labels include `labels`. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) sum += Number(m[3]);
  }
  return sum;
}

/** Whether a series of `name` with exactly these labels is in the scrape (at any value, 0 included). */
export function hasSeries(text: string, name: string, labels: Record<string, string>): boolean {
  const want = `${name}{${Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',')}} `;
  return text.split('\n').some((line) => line.startsWith(want));
}

/** Prometheus's own checker (Debian's `prometheus` package; `.ci/run` installs it). */
export const promtoolInstalled = spawnSync('promtool', ['--version']).status === 0;

/** promtool's verdict on a scrape: '' when it is valid, else what it printed. */
export function promtoolProblems(text: string): string {
  const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  return check.status === 0 ? '' : `${check.stdout}${check.stderr}`;
}
