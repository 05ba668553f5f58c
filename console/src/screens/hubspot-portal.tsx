/**
 * One HubSpot portal's texts, contact by contact: the contact-creation auto-sends (sent, waiting
 * for time and until when, failed or skipped and why) and the workflow actions held for time
 * (waiting, being reported to HubSpot, done, given up, and what HubSpot is told). Each list has
 * its own filter in the address (`status`, `state`) and pages with "Load more" on the API's cursor.
 * Contact ids link to the contact's record in HubSpot (a new tab) when the portal's UI domain is known.
 */
import { useEffect, useRef, type ChangeEvent, type ReactNode } from 'react';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import type { HubSpotAutoSend, HubSpotAutoSendsQuery, HubSpotHeldAction, HubSpotHeldActionsQuery } from '@blueline/sdk';
import { client } from '../api.js';
import { Badge, Card, Empty, ErrorBanner, Notice, Page, Spinner, When } from '../ui.js';

const PAGE = 50;

type AutoSendStatus = NonNullable<HubSpotAutoSendsQuery['status']>;
type HeldState = NonNullable<HubSpotHeldActionsQuery['state']>;
const AUTO_SEND_STATUSES: readonly AutoSendStatus[] = ['pending', 'sent', 'failed', 'skipped'];
const HELD_STATES: readonly HeldState[] = ['held', 'completing', 'completed', 'abandoned'];
const autoSendTone: Record<AutoSendStatus, string> = { pending: 'warn', sent: 'good', failed: 'bad', skipped: 'muted' };
const heldTone: Record<HeldState, string> = { held: 'warn', completing: 'info', completed: 'good', abandoned: 'bad' };
const heldLabel: Record<HeldState, string> = { held: 'waiting', completing: 'telling HubSpot', completed: 'done', abandoned: 'given up' };

type PortalSearch = { status?: string; state?: string };

/** The message sent: a link to its conversation when there is one, else its id (or nothing). */
function Sent({ messageId, chatId, contact }: { messageId: string | null; chatId: string | null; contact: string }) {
  if (chatId)
    return (
      <Link to="/conversations/$chatId" params={{ chatId }}>
        Open conversation<span className="sr-only"> with contact {contact}</span>
      </Link>
    );
  return messageId ? <span className="mono small">{messageId}</span> : <span className="muted">—</span>;
}

/**
 * A contact id, linked to the contact's record in HubSpot (https://{ui_domain}/contacts/{portal}/record/0-1/{id},
 * 0-1 being HubSpot's contacts object) when the install knows its UI domain (account details' uiDomain:
 * EU-hosted portals are on app-eu1.hubspot.com); without it, the plain id rather than a guessed domain.
 */
function Contact({ id, portalId, uiDomain }: { id: string; portalId: string; uiDomain: string | null }) {
  if (!uiDomain) return <>{id}</>;
  return (
    <a href={`https://${uiDomain}/contacts/${encodeURIComponent(portalId)}/record/0-1/${encodeURIComponent(id)}`} target="_blank" rel="noopener noreferrer">
      {id}
      <span className="sr-only"> in HubSpot (opens in a new tab)</span>
    </a>
  );
}

/**
 * "Load more" while the API has another page; after the last one, how many are shown. Focus on
 * the button when it goes away moves to that line, so the keyboard user is not dropped to the top.
 */
function LoadMore({ more, loading, shown, onMore, what }: { more: boolean; loading: boolean; shown: number; onMore: () => void; what: string }) {
  const button = useRef<HTMLButtonElement>(null);
  const done = useRef<HTMLParagraphElement>(null);
  const hadFocus = useRef(false);
  useEffect(() => {
    if (!more && hadFocus.current) done.current?.focus();
    hadFocus.current = false;
  }, [more]);
  if (more)
    return (
      <div className="pager">
        <span className="muted small" aria-live="polite">{shown} shown</span>
        <button type="button" ref={button} className="btn small" disabled={loading} onClick={() => { hadFocus.current = true; onMore(); }}>
          {loading ? 'Loading…' : 'Load more'}<span className="sr-only"> {what}</span>
        </button>
      </div>
    );
  return shown > PAGE ? <p className="muted small" tabIndex={-1} ref={done}>All {shown} shown.</p> : null;
}

function Filter<T extends string>({ name, label, value, options, labels, onChange }: { name: string; label: string; value: string; options: readonly T[]; labels?: Record<T, string>; onChange: (v: string) => void }) {
  return (
    <div className="filters" role="search" aria-label={name}>
      <label>
        {label}
        <select value={value} onChange={(e: ChangeEvent<HTMLSelectElement>) => onChange(e.target.value)}>
          <option value="">Any</option>
          {options.map((o) => (
            <option key={o} value={o}>{labels ? `${labels[o]} (${o})` : o}</option>
          ))}
        </select>
      </label>
    </div>
  );
}

/** Loading, error, empty, or the table (a sideways-scrolling region at phone width, reachable by keyboard). */
function ListBody({ q, empty, emptyText, name, head, children }: { q: { isPending: boolean; error: unknown }; empty: boolean; emptyText: string; name: string; head: ReactNode; children: ReactNode }) {
  return (
    <>
      <ErrorBanner error={q.error} />
      {q.isPending ? (
        <Spinner />
      ) : q.error ? null : empty ? (
        <Empty>{emptyText}</Empty>
      ) : (
        <table className="table compact texts" aria-label={name} tabIndex={0}>
          <thead>{head}</thead>
          <tbody>{children}</tbody>
        </table>
      )}
    </>
  );
}

function AutoSends({ portalId, uiDomain, status, setStatus }: { portalId: string; uiDomain: string | null; status: AutoSendStatus | undefined; setStatus: (s: string) => void }) {
  const list = useInfiniteQuery({
    queryKey: ['hubspot-auto-sends', portalId, status ?? ''],
    queryFn: ({ pageParam }) => client.hubspot.autoSends(portalId, { limit: PAGE, ...(status && { status }), ...(pageParam && { cursor: pageParam }) }),
    initialPageParam: '' as string,
    getNextPageParam: (p) => p.next_cursor ?? undefined,
  });
  const rows: HubSpotAutoSend[] = list.data?.pages.flatMap((p) => p.auto_sends) ?? [];
  return (
    <Card title="Texts to new contacts">
      <p className="muted">Each contact created in HubSpot while auto-send is on: texted, waiting for the sending window or a free line (then sent when allowed), or not texted and why.</p>
      <Filter name="Filter texts to new contacts" label="Status" value={status ?? ''} options={AUTO_SEND_STATUSES} onChange={setStatus} />
      <ListBody q={list} empty={rows.length === 0} name="Texts to new contacts" emptyText={status ? `No auto-sends ${status}.` : 'No contact created since the portal was connected.'} head={
        <tr>
          <th scope="col">Contact</th>
          <th scope="col">Status</th>
          <th scope="col">Why</th>
          <th scope="col">Next try</th>
          <th scope="col">Message</th>
          <th scope="col">Created</th>
        </tr>
      }>
        {rows.map((a) => (
          <tr key={a.object_id} data-contact={a.object_id}>
            <th scope="row" className="mono"><Contact id={a.object_id} portalId={portalId} uiDomain={uiDomain} /></th>
            <td><Badge tone={autoSendTone[a.status]}>{a.status}</Badge></td>
            <td className="why">
              {a.reason ?? (a.status === 'pending' ? 'not worked on yet' : '—')}
              {a.code !== null && <span className="muted small"> (code <span className="mono">{a.code}</span>)</span>}
            </td>
            <td>
              {a.waiting ? (
                <>
                  <When at={a.waiting.next_attempt_at} />
                  <div className="muted small">gives up <When at={a.waiting.gives_up_at} /></div>
                </>
              ) : (
                '—'
              )}
            </td>
            <td><Sent messageId={a.message_id} chatId={a.chat_id} contact={a.object_id} /></td>
            <td><When at={a.created_at} /></td>
          </tr>
        ))}
      </ListBody>
      {rows.length > 0 && <LoadMore more={list.hasNextPage} loading={list.isFetchingNextPage} shown={rows.length} onMore={() => void list.fetchNextPage()} what="texts to new contacts" />}
    </Card>
  );
}

/** What each time limit means to sales ops: what the action waits for, and whether anything would help. */
const heldReasonText: Record<string, string> = {
  'outside sending window': 'outside the sending window: sent when it opens',
  'lines saturated': 'every line at its first-touch limit: sent when a line is free (more lines would help)',
};

/** Why a held action waits (the limit that held it last, then its last error), or what went wrong. */
function HeldWhy({ a }: { a: HubSpotHeldAction }) {
  if (a.state === 'held' && a.reason)
    return (
      <>
        {heldReasonText[a.reason] ?? a.reason}
        <span className="muted small"> (<span className="mono">{a.reason}</span>)</span>
        {a.last_error && <div className="muted small">{a.last_error}</div>}
      </>
    );
  if (a.last_error) return <>{a.last_error}</>;
  // Held before the reason was recorded.
  if (a.state === 'held') return <>outside the sending window, or every line at its first-touch limit</>;
  return <>—</>;
}

function HeldActions({ portalId, uiDomain, state, setState }: { portalId: string; uiDomain: string | null; state: HeldState | undefined; setState: (s: string) => void }) {
  const list = useInfiniteQuery({
    queryKey: ['hubspot-held-actions', portalId, state ?? ''],
    queryFn: ({ pageParam }) => client.hubspot.heldActions(portalId, { limit: PAGE, ...(state && { state }), ...(pageParam && { cursor: pageParam }) }),
    initialPageParam: '' as string,
    getNextPageParam: (p) => p.next_cursor ?? undefined,
  });
  const rows: HubSpotHeldAction[] = list.data?.pages.flatMap((p) => p.held_actions) ?? [];
  return (
    <Card title="Workflow texts held for time">
      <p className="muted">Workflow actions refused only for time: HubSpot holds the workflow, the text goes out when allowed, then HubSpot is told the outcome and the workflow goes on.</p>
      <Filter name="Filter held workflow texts" label="State" value={state ?? ''} options={HELD_STATES} labels={heldLabel} onChange={setState} />
      <ListBody q={list} empty={rows.length === 0} name="Workflow texts held for time" emptyText={state ? `No held workflow actions ${heldLabel[state]}.` : 'No workflow action was held.'} head={
        <tr>
          <th scope="col">Contact</th>
          <th scope="col">Workflow action</th>
          <th scope="col">State</th>
          <th scope="col">Why</th>
          <th scope="col">Next try</th>
          <th scope="col">HubSpot told</th>
          <th scope="col">Message</th>
          <th scope="col">Created</th>
        </tr>
      }>
        {rows.map((a) => (
          <tr key={a.callback_id} data-callback={a.callback_id}>
            <th scope="row" className="mono"><Contact id={a.object_id} portalId={portalId} uiDomain={uiDomain} /></th>
            {/* Kept on one line (a workflow action id broken over four lines was unreadable), cut short only if very long. */}
            <td><span className="mono small id" title={a.callback_id}>{a.callback_id}</span></td>
            <td><Badge tone={heldTone[a.state]}>{heldLabel[a.state]}</Badge></td>
            <td className="why"><HeldWhy a={a} /></td>
            <td>
              <When at={a.next_attempt_at} />
              {(a.state === 'held' || a.state === 'completing') && <div className="muted small">HubSpot's hold ends <When at={a.hold_expires_at} /></div>}
            </td>
            <td>
              {a.outcome ? (
                <>
                  {a.outcome.state === 'SUCCESS' ? 'success' : 'failed, workflow continues'}
                  {a.outcome.error && <div className="muted small">{a.outcome.error}</div>}
                  {a.completed_at && <div className="muted small"><When at={a.completed_at} /></div>}
                </>
              ) : (
                '—'
              )}
            </td>
            <td><Sent messageId={a.message_id} chatId={a.chat_id} contact={a.object_id} /></td>
            <td><When at={a.created_at} /></td>
          </tr>
        ))}
      </ListBody>
      {rows.length > 0 && <LoadMore more={list.hasNextPage} loading={list.isFetchingNextPage} shown={rows.length} onMore={() => void list.fetchNextPage()} what="held workflow actions" />}
    </Card>
  );
}

export function HubSpotPortal() {
  const { portalId } = useParams({ strict: false }) as { portalId: string };
  const search = useSearch({ strict: false }) as PortalSearch;
  const navigate = useNavigate();
  // The HubSpot screen's query (shared cache): whether this portal is still connected.
  const installs = useQuery({ queryKey: ['hubspot'], queryFn: () => client.hubspot.status() });
  const install = installs.data?.installs.find((i) => i.portal_id === portalId);
  const disconnected = install?.status === 'uninstalled';
  const uiDomain = install?.ui_domain ?? null;
  const status = AUTO_SEND_STATUSES.find((s) => s === search.status);
  const state = HELD_STATES.find((s) => s === search.state);
  // From the address as it is now: changing one list's filter keeps the other's.
  const go = (change: PortalSearch) =>
    void navigate({
      to: '/hubspot/$portalId',
      params: { portalId },
      search: ((prev: PortalSearch) => {
        const next: PortalSearch = { ...prev, ...change };
        for (const k of Object.keys(next) as (keyof PortalSearch)[]) if (!next[k]) delete next[k];
        return next;
      }) as never,
      replace: true,
    });
  return (
    <Page title={`HubSpot portal ${portalId}`} subtitle={<Link to="/hubspot">← HubSpot</Link>}>
      <div className="stack">
        {disconnected && (
          <Notice kind="warn">
            This portal is disconnected: nothing more is texted from HubSpot; these are its past texts.{' '}
            <Link to="/hubspot" className="btn small">Connect HubSpot again</Link>
          </Notice>
        )}
        <AutoSends portalId={portalId} uiDomain={uiDomain} status={status} setStatus={(s) => go({ status: s })} />
        <HeldActions portalId={portalId} uiDomain={uiDomain} state={state} setState={(s) => go({ state: s })} />
      </div>
    </Page>
  );
}
