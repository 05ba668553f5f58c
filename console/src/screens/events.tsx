import { memo, useEffect, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useNavigate, useSearch } from '@tanstack/react-router';
import type { EventRecord, EventsQuery, StreamEvent } from '@blueline/sdk';
import { client, describeError } from '../api.js';
import { Badge, Card, Empty, ErrorBanner, Notice, Page, RowLink, Spinner, shortTime, statusTone, time } from '../ui.js';
import { EVENT_TYPES, senderOf, textOf } from '../event-summary.js';

const PAGE = 50;
/** Rows the live tail keeps on screen; older ones drop off (the list below pages through everything). */
const TAIL_ROWS = 200;

type DeliveryStatus = NonNullable<EventsQuery['status']>;
const STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'failed', 'dev_inbox'];

type Filters = { type: string; status: string; lead_id: string; since: string };

/** One row of the live tail; drawn once, so a redraw costs only the rows that are new. */
const TailRow = memo(function TailRow({ event: e }: { event: StreamEvent }) {
  return (
    <li className="tail-row" data-event-id={e.id}>
      <span className="mono muted">{shortTime(e.created_at)}</span>
      <Badge>{e.type}</Badge>
      <bdi className="mono ellipsis">{senderOf(e)}</bdi>
      <bdi className="ellipsis" dir="auto">{textOf(e)}</bdi>
      <RowLink target={{ to: '/events/$eventId', params: { eventId: e.id } }} className="small">
        Details
      </RowLink>
    </li>
  );
});

/**
 * The live tail: SSE frames are buffered and drawn at most four times a second, so a burst of
 * hundreds of events per second costs a few renders, not one per event. It takes no props, so a
 * change of the list's page or filters leaves it alone.
 */
const LiveTail = memo(function LiveTail() {
  const [on, setOn] = useState(false);
  const [rows, setRows] = useState<StreamEvent[]>([]);
  const [count, setCount] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const buffer = useRef<StreamEvent[]>([]);
  useEffect(() => {
    if (!on) return;
    const abort = new AbortController();
    let total = 0;
    const timer = setInterval(() => {
      if (buffer.current.length === 0) return;
      const fresh = buffer.current.reverse();
      buffer.current = [];
      setRows((r) => [...fresh, ...r].slice(0, TAIL_ROWS));
      setCount(total);
    }, 250);
    (async () => {
      try {
        for await (const e of client.events.stream({ signal: abort.signal })) {
          buffer.current.push(e);
          total++;
        }
      } catch (err) {
        if (!abort.signal.aborted) setError(describeError(err));
      }
    })();
    return () => {
      abort.abort();
      clearInterval(timer);
    };
  }, [on]);
  return (
    <Card
      title={
        <>
          Live tail {on && <span className="live-dot" aria-hidden="true" />}
        </>
      }
      actions={
        <>
          <span className="muted small" aria-live="polite">{on ? `${count} received` : 'paused'}</span>
          <button type="button" className={`btn small ${on ? '' : 'primary'}`} onClick={() => setOn(!on)} aria-pressed={on}>
            {on ? 'Pause' : 'Start live tail'}
          </button>
        </>
      }
    >
      {error && <div className="banner error" role="alert">{error}</div>}
      {on && rows.length === 0 && <Empty>Waiting for events…</Empty>}
      {!on && rows.length === 0 && <p className="muted small">Paused. Start the live tail to watch events arrive as they happen.</p>}
      {rows.length > 0 && (
        <ol className="tail" aria-label="Live events">
          {rows.map((e) => (
            <TailRow key={e.id} event={e} />
          ))}
        </ol>
      )}
    </Card>
  );
});

/**
 * The filters and the page live in the address: back from an event's page, a reload or a shared
 * link shows the same list. `c`: the cursors of the pages walked through, oldest last.
 */
type EventsSearch = Partial<Filters> & { c?: string[] };
const text = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

/**
 * The "After" filter as the API takes it, or null. The address holds an instant (UTC, as the box's
 * change writes it), so a shared link means the same moment in every time zone; a local time
 * without an offset (what links made before said) is read in this browser's zone. Anything else
 * (`?since=garbage`, edited by hand) is not a date: ignored, and the screen says so.
 */
function sinceOf(value: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?$/.test(value)) return null;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? null : at.toISOString();
}

/** An instant as the date-time box shows it: this browser's local time, to the minute. */
function localBoxValue(iso: string): string {
  const at = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`;
}

const ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

export function Events() {
  const search = useSearch({ strict: false }) as EventsSearch;
  const navigate = useNavigate();
  const filters: Filters = { type: text(search.type), status: text(search.status), lead_id: text(search.lead_id), since: search.since === undefined || search.since === '' ? '' : text(search.since) || JSON.stringify(search.since) };
  const cursors = Array.isArray(search.c) ? search.c.filter((x): x is string => typeof x === 'string') : [];
  // From the address as it is now (not as this render saw it): a click right after a filter keeps it.
  const go = (change: Partial<EventsSearch>, replace = true) =>
    void navigate({
      to: '/events',
      search: ((prev: EventsSearch) => {
        const next: EventsSearch = { ...prev, ...change };
        for (const k of Object.keys(next) as (keyof EventsSearch)[]) if (next[k] === '' || (Array.isArray(next[k]) && next[k].length === 0)) delete next[k];
        return next;
      }) as never,
      replace,
    });
  // A page is a step the browser's Back undoes; a filter change replaces the address it refines.
  const setCursors = (c: string[]) => go({ c }, false);
  const cursor = cursors[cursors.length - 1];
  const status = STATUSES.find((s) => s === filters.status);
  const since = sinceOf(filters.since);
  const query = {
    limit: PAGE,
    ...(filters.type && { type: filters.type }),
    ...(status && { status }),
    ...(filters.lead_id && { lead_id: filters.lead_id }),
    ...(since && { since }),
    ...(cursor && { cursor }),
  };
  const page = useQuery({ queryKey: ['events', query], queryFn: () => client.events.list(query).page(), placeholderData: (p) => p });
  const set = (k: keyof Filters) => (e: { target: { value: string } }) => go({ [k]: e.target.value, c: [] });
  return (
    <Page title="Events" subtitle="Every event, its deliveries and replays">
      <LiveTail />
      <Card title="History">
        <div className="filters" role="search">
          <label>
            Type
            <select value={filters.type} onChange={set('type')}>
              <option value="">Any type</option>
              {EVENT_TYPES.map((t) => (
                <option key={t} value={t}>{t}</option>
              ))}
            </select>
          </label>
          <label>
            Status
            <select value={filters.status} onChange={set('status')}>
              <option value="">Any status</option>
              {STATUSES.map((s) => (
                <option key={s} value={s}>{s}</option>
              ))}
            </select>
          </label>
          <label>
            Lead
            <input value={filters.lead_id} onChange={set('lead_id')} placeholder="lead id" />
          </label>
          <label>
            After
            <input
              type="datetime-local"
              title={`In your time zone (${ZONE})`}
              value={since ? localBoxValue(since) : filters.since}
              onChange={(e) => go({ since: sinceOf(e.target.value) ?? e.target.value, c: [] })}
            />
          </label>
        </div>
        {filters.since && !since && (
          <div className="row">
            <Notice kind="warn">
              The address has an “After” filter that is not a date and time (<bdi className="mono">{filters.since}</bdi>): it is ignored, and the list shows events of any time.
            </Notice>
            <button type="button" className="btn small" onClick={() => go({ since: '', c: [] })}>Remove it</button>
          </div>
        )}
        <ErrorBanner error={page.error} />
        {page.isPending ? (
          <Spinner />
        ) : !page.data ? null : page.data.events.length === 0 ? (
          <Empty>No events match.</Empty>
        ) : (
          // While another page loads, the rows shown are the last page's: dimmed and marked busy.
          <table className={`table${page.isPlaceholderData ? ' stale' : ''}`} aria-label="Events" aria-busy={page.isPlaceholderData}>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Type</th>
                <th scope="col">Delivery</th>
                <th scope="col">From / to</th>
                <th scope="col">Message</th>
                <th scope="col">Attempts</th>
              </tr>
            </thead>
            <tbody>
              {page.data?.events.map((e: EventRecord) => (
                <tr key={e.id} data-event-id={e.id}>
                  <td className="nowrap">
                    <RowLink target={{ to: '/events/$eventId', params: { eventId: e.id } }}>{time(e.created_at)}</RowLink>
                  </td>
                  <td>{e.type}</td>
                  <td>
                    <Badge tone={statusTone(e.delivery.status)}>{e.delivery.status}</Badge>
                  </td>
                  <td className="nowrap"><bdi className="mono">{senderOf(e)}</bdi></td>
                  <td className="ellipsis max40"><bdi dir="auto">{textOf(e)}</bdi></td>
                  <td>{e.delivery.attempts.length}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <div className="pager">
          <button type="button" className="btn small" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
            ← Newer
          </button>
          <span className="muted small">Page {cursors.length + 1}{page.isPlaceholderData ? ' (loading…)' : ''}</span>
          <button type="button" className="btn small" disabled={!page.data?.next_cursor || page.isPlaceholderData} onClick={() => page.data?.next_cursor && setCursors([...cursors, page.data.next_cursor])}>
            Older →
          </button>
        </div>
      </Card>
    </Page>
  );
}
