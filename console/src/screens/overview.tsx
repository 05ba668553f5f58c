import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import type { PhoneLine, Stats } from '@blueline/sdk';
import { client } from '../api.js';
import { Badge, Card, ErrorBanner, Page, Spinner, Stat, ago } from '../ui.js';

type Daily = Stats['daily'][number];

/** YYYY-MM-DD: the date the calendar of `timeZone` shows at `ms`. */
function dateIn(ms: number, timeZone: string): string {
  const p: Record<string, string> = {};
  for (const part of new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(ms)) p[part.type] = part.value;
  return `${p.year}-${p.month}-${p.day}`;
}

/**
 * The last `n` dates of the project's calendar, today last: the service counts the chart's days
 * in the project's timezone (as it counts the caps' "today"), not in UTC or the browser's zone.
 */
function lastDays(n: number, timeZone: string): string[] {
  const [y, m, d] = dateIn(Date.now(), timeZone).split('-').map(Number) as [number, number, number];
  const out: string[] = [];
  // Calendar dates, not instants: no day is assumed to be 24 hours long.
  for (let i = n - 1; i >= 0; i--) out.push(new Date(Date.UTC(y, m - 1, d - i)).toISOString().slice(0, 10));
  return out;
}

const SERIES = [
  { key: 'sent', label: 'Sent', cls: 's-sent' },
  { key: 'received', label: 'Received', cls: 's-received' },
  { key: 'failed', label: 'Failed', cls: 's-failed' },
] as const;

/** Stacked daily bars, drawn as SVG (no chart library: it would double the first load). */
function DailyChart({ daily, days, lineId, timeZone }: { daily: Daily[]; days: number; lineId: string | 'all'; timeZone: string }) {
  const dates = lastDays(days, timeZone);
  const rows = dates.map((d) => {
    const of = daily.filter((x) => x.date === d && (lineId === 'all' || x.phone_line_id === lineId));
    return { date: d, sent: of.reduce((s, x) => s + x.sent, 0), received: of.reduce((s, x) => s + x.received, 0), failed: of.reduce((s, x) => s + x.failed, 0) };
  });
  // A multiple of 4, so the four grid lines fall on whole counts.
  const max = Math.ceil(Math.max(4, ...rows.map((r) => r.sent + r.received + r.failed)) / 4) * 4;
  const W = 720;
  const H = 200;
  const G = 36; // left gutter for the count labels
  const bw = (W - G) / rows.length;
  const total = rows.reduce((s, r) => ({ sent: s.sent + r.sent, received: s.received + r.received, failed: s.failed + r.failed }), { sent: 0, received: 0, failed: 0 });
  return (
    <figure className="chart">
      <svg viewBox={`0 -8 ${W} ${H + 32}`} role="img" aria-label={`Messages per day over ${days} days: ${total.sent} sent, ${total.received} received, ${total.failed} failed`}>
        {[0.25, 0.5, 0.75, 1].map((f) => (
          <g key={f}>
            <line x1={G} x2={W} y1={H - H * f} y2={H - H * f} className="grid" />
            <text x={G - 8} y={H - H * f} dominantBaseline="middle" className="axis" textAnchor="end">
              {Math.round(max * f)}
            </text>
          </g>
        ))}
        {rows.map((r, i) => {
          let y = H;
          return (
            <g key={r.date}>
              <title>{`${r.date}: ${r.sent} sent, ${r.received} received, ${r.failed} failed`}</title>
              {SERIES.map((s) => {
                const h = (r[s.key] / max) * H;
                y -= h;
                return h > 0 ? <rect key={s.key} x={G + i * bw + 2} y={y} width={bw - 4} height={h} rx={2} className={s.cls} /> : null;
              })}
              {i % 5 === 0 && (
                <text x={G + i * bw + bw / 2} y={H + 16} className="axis" textAnchor="middle">
                  {r.date.slice(5)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption className="legend">
        {SERIES.map((s) => (
          <span key={s.key}>
            <i className={`dot ${s.cls}`} /> {s.label} <strong>{total[s.key]}</strong>
          </span>
        ))}
      </figcaption>
    </figure>
  );
}



export function Overview() {
  const stats = useQuery({ queryKey: ['stats', 30], queryFn: () => client.stats.get({ days: 30 }), refetchInterval: 30_000 });
  const lines = useQuery({ queryKey: ['lines'], queryFn: () => client.lines.list() });
  // The project's timezone: the chart's dates are its calendar's (the Settings screen shares this query).
  const settings = useQuery({ queryKey: ['settings'], queryFn: () => client.settings.get() });
  const [line, setLine] = useState<string>('all');
  const s = stats.data;
  const lineName = (id: string | null) => lines.data?.find((l: PhoneLine) => l.phone_line_id === id)?.phone_number ?? id ?? '—';
  return (
    <Page title="Overview" subtitle="The last 30 days of your project">
      <ErrorBanner error={stats.error ?? lines.error ?? settings.error} />
      {!s ? (
        stats.isPending && <Spinner />
      ) : (
        <>
          <div className="stats">
            <Stat label="First touches today" value={`${s.first_touches_today.used} / ${s.first_touches_today.cap}`} hint="daily cap across the project" tone={s.first_touches_today.used >= s.first_touches_today.cap ? 'bad' : undefined} />
            <Stat
              label="Webhook success"
              value={s.webhooks.success_rate === null ? '—' : `${(s.webhooks.success_rate * 100).toFixed(1)}%`}
              hint={`${s.webhooks.delivered} delivered · ${s.webhooks.failed} failed`}
              tone={s.webhooks.success_rate === null ? undefined : s.webhooks.success_rate < 0.95 ? 'warn' : 'good'}
            />
            <Stat label="Pending events" value={s.webhooks.pending} hint={s.webhooks.oldest_pending_at ? `oldest ${ago(s.webhooks.oldest_pending_at)}` : 'none waiting'} tone={s.webhooks.pending > 0 ? 'warn' : undefined} />
            <Stat label="Lines" value={lines.data?.length ?? '—'} hint={`${lines.data?.filter((l) => l.is_active).length ?? 0} active`} />
          </div>
          <Card
            title="Messages per day"
            actions={
              <label className="inline">
                <span className="sr-only">Line</span>
                <select value={line} onChange={(e) => setLine(e.target.value)} aria-label="Line">
                  <option value="all">All lines</option>
                  {lines.data?.map((l) => (
                    <option key={l.phone_line_id} value={l.phone_line_id}>
                      {l.phone_number}
                    </option>
                  ))}
                </select>
              </label>
            }
          >
            {settings.data ? <DailyChart daily={s.daily} days={s.days} lineId={line} timeZone={settings.data.timezone} /> : settings.isPending && <Spinner />}
          </Card>
          <Card title="Lines" actions={<Link to="/conversations" className="btn small">Open conversations</Link>}>
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">Number</th>
                  <th scope="col">State</th>
                  <th scope="col">Capabilities</th>
                  <th scope="col">First touches today</th>
                </tr>
              </thead>
              <tbody>
                {lines.data?.map((l) => {
                  const ft = s.first_touches_today.per_line.find((p) => p.phone_line_id === l.phone_line_id);
                  return (
                    <tr key={l.phone_line_id}>
                      <td className="mono">{lineName(l.phone_line_id)}</td>
                      <td>{l.is_active ? <Badge tone="good">active</Badge> : <Badge tone="bad">inactive</Badge>}</td>
                      <td>{l.capabilities.join(', ')}</td>
                      <td>
                        <div className="meter" role="meter" aria-valuemin={0} aria-valuemax={ft?.limit ?? 30} aria-valuenow={ft?.used ?? 0} aria-label={`first touches on ${l.phone_number}`}>
                          <span style={{ width: `${Math.min(100, ((ft?.used ?? 0) / (ft?.limit ?? 30)) * 100)}%` }} />
                        </div>
                        <span className="muted small">
                          {ft?.used ?? 0} / {ft?.limit ?? 30}
                        </span>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </Card>
        </>
      )}
    </Page>
  );
}
