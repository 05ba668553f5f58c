import { useEffect, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { DEV_INBOX_URL, type Subscription, type SubscriptionTestResult } from '@blueline/sdk';
import { client, describeError } from '../api.js';
import { useSession } from '../session.js';
import { Badge, Card, Empty, ErrorBanner, Notice, Page, RowLink, SecretOnce, Spinner, ago, time } from '../ui.js';
import { EVENT_TYPES, senderOf, textOf, type EventType } from '../event-summary.js';

const OVERLAPS = [
  { hours: 0, label: 'none: every earlier secret stops now' },
  { hours: 1, label: '1 hour' },
  { hours: 24, label: '24 hours' },
  { hours: 72, label: '3 days' },
  { hours: 168, label: '7 days' },
];

/** The account's signing secret: when issued, the overlap of the last rotation, and a rotation. */
function Credentials() {
  const { session } = useSession();
  const qc = useQueryClient();
  const status = useQuery({ queryKey: ['signing-secret'], queryFn: () => client.signingSecret.get() });
  const [overlap, setOverlap] = useState(24);
  const [secret, setSecret] = useState<string | null>(null);
  const rotate = useMutation({
    mutationFn: () => client.signingSecret.rotate({ overlap_hours: overlap }),
    onSuccess: (r) => {
      setSecret(r.signing_secret);
      void qc.invalidateQueries({ queryKey: ['signing-secret'] });
    },
  });
  const s = status.data;
  const others = s?.shared_with_tenants.filter((t) => t !== session.tenant?.slug) ?? [];
  return (
    <Card title="API credentials">
      <dl className="kv">
        <dt>Tenant</dt>
        <dd className="mono">{session.tenant?.slug}</dd>
        <dt>Base URL</dt>
        <dd className="mono">{window.location.origin}/api/v1</dd>
        <dt>Authentication</dt>
        <dd>Bearer signing secret, or HMAC (<span className="mono">x-service-signature</span>) with the tenant header</dd>
        <dt>Signing secret</dt>
        <dd data-testid="secret-issued">{s ? <>issued {time(s.created_at)}{s.rotated_at ? ' (rotated)' : ''}</> : '—'}</dd>
        <dt>Previous secret</dt>
        <dd data-testid="secret-overlap">
          {!s ? '—' : s.previous_secret_expires_at ? <>still works until {time(s.previous_secret_expires_at)} ({ago(s.previous_secret_expires_at)})</> : 'none works any more'}
        </dd>
      </dl>
      <ErrorBanner error={status.error ?? rotate.error} />
      {secret && <SecretOnce secret={secret} onDone={() => setSecret(null)} />}
      <form
        className="row wrap"
        aria-label="Rotate the signing secret"
        onSubmit={(e) => {
          e.preventDefault();
          const then =
            overlap === 0
              ? 'Every earlier secret stops now, and every other console session of the account is signed out (this one stays).'
              : 'The old one keeps working for the overlap you chose; console sessions signed in with it end when it does.';
          if (confirm(`Issue a new signing secret${others.length ? ` (it is also the secret of ${others.join(', ')})` : ''}? ${then}`)) rotate.mutate();
        }}
      >
        <label>
          Old secret keeps working for
          <select value={overlap} onChange={(e) => setOverlap(Number(e.target.value))}>
            {OVERLAPS.map((o) => (
              <option key={o.hours} value={o.hours}>{o.label}</option>
            ))}
          </select>
        </label>
        <button className="btn" type="submit" disabled={rotate.isPending}>Rotate signing secret</button>
      </form>
      {others.length > 0 && <Notice>The secret is your account&rsquo;s: rotating it changes it for {others.join(', ')} too.</Notice>}
    </Card>
  );
}

/** Where a subscription delivers, as the console names it. */
const endpointName = (url: string) => (url === DEV_INBOX_URL ? 'the dev inbox' : url);

function Endpoint({ sub, onSecret }: { sub: Subscription; onSecret: (s: { secret: string; url: string; rotated: boolean }) => void }) {
  const qc = useQueryClient();
  const [result, setResult] = useState<SubscriptionTestResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const refresh = () => qc.invalidateQueries({ queryKey: ['subscriptions'] });
  const run = (fn: () => Promise<unknown>) => () => {
    setError(null);
    fn().then(refresh, (e: unknown) => setError(describeError(e)));
  };
  const isInbox = sub.url === DEV_INBOX_URL;
  return (
    <li className="endpoint" data-subscription-id={sub.id}>
      <div className="endpoint-main">
        <div className="mono url">{isInbox ? 'Dev inbox (pull mode)' : sub.url}</div>
        <div className="muted small">
          {sub.events.join(', ')} · added {ago(sub.created_at)} · <span className="mono">{sub.id}</span>
        </div>
        {result && (
          <div className={`test-result ${result.ok ? 'good' : 'bad'}`} role="status">
            Test {result.ok ? 'delivered' : 'failed'}: HTTP {result.status || 'no answer'} in {Math.round(result.duration_ms)} ms{result.error ? ` — ${result.error}` : ''}
          </div>
        )}
        {error && <div className="banner error" role="alert">{error}</div>}
      </div>
      <div className="endpoint-actions">
        {sub.enabled ? <Badge tone="good">enabled</Badge> : <Badge tone="muted">disabled</Badge>}
        {!isInbox && (
          <button type="button" className="btn small" onClick={() => { setError(null); client.webhookSubscriptions.test(sub.id).then(setResult, (e: unknown) => setError(describeError(e))); }}>
            Send test
          </button>
        )}
        <button
          type="button"
          className="btn small"
          aria-label={`Rotate secret of ${endpointName(sub.url)}`}
          onClick={run(async () => {
            // A new secret means the receiver must learn it within the overlap: ask first, as for the signing secret.
            if (confirm(`Issue a new webhook secret for ${endpointName(sub.url)}? Deliveries are signed with both secrets for 24 hours; then only the new one.`)) {
              onSecret({ secret: (await client.webhookSubscriptions.rotateSecret(sub.id, { overlap_hours: 24 })).secret, url: sub.url, rotated: true });
            }
          })}
        >
          Rotate secret
        </button>
        <button type="button" className="btn small" onClick={run(() => client.webhookSubscriptions.update(sub.id, { enabled: !sub.enabled }))}>
          {sub.enabled ? 'Disable' : 'Enable'}
        </button>
        <button type="button" className="btn small danger" onClick={run(async () => { if (confirm('Delete this endpoint? Deliveries to it stop.')) await client.webhookSubscriptions.delete(sub.id); })}>
          Delete
        </button>
      </div>
    </li>
  );
}

/** Events the dev inbox card shows: the newest. */
const INBOX_SHOWN = 20;
const INBOX_PAGE = 200;

type InboxEvent = Awaited<ReturnType<typeof client.devInbox.pull>>['events'][number];

/**
 * The dev inbox, newest first. The API pulls oldest first and resumes with `since=next_since`
 * (events accumulate for good), so the card walks forward to the end and then asks only for what
 * came after: a first page of `limit=20` showed the 20 oldest events for ever, never a new one.
 */
function DevInbox() {
  const [inbox, setInbox] = useState<{ events: InboxEvent[]; total: number; loaded: boolean }>({ events: [], total: 0, loaded: false });
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let since: string | undefined;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        // A long backlog is walked a few pages per poll, so one poll never runs for long.
        for (let i = 0; i < 10 && !stopped; i++) {
          const page = await client.devInbox.pull({ limit: INBOX_PAGE, ...(since && { since }) });
          if (stopped) return;
          since = page.next_since ?? since;
          const fresh = [...page.events].reverse();
          setInbox((s) => ({ events: [...fresh, ...s.events].slice(0, INBOX_SHOWN), total: s.total + fresh.length, loaded: true }));
          setError(null);
          if (page.events.length < INBOX_PAGE) break;
        }
      } catch (err) {
        if (!stopped) setError(err);
      }
      if (!stopped) timer = setTimeout(() => void poll(), 5_000);
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, []);
  return (
    <Card title="Dev inbox" actions={inbox.total > INBOX_SHOWN ? <span className="muted small">newest {INBOX_SHOWN} of {inbox.total}</span> : undefined}>
      <ErrorBanner error={error} />
      {!inbox.loaded && !error && <Spinner />}
      {inbox.loaded && inbox.events.length === 0 && <Empty>No events in the dev inbox yet.</Empty>}
      <ul className="list" aria-label="Dev inbox events, newest first">
        {inbox.events.map((e) => (
          <li key={e.id} className="inbox-row" data-event-id={e.id}>
            <span className="mono muted">{time(e.created_at)}</span>
            <bdi className="mono ellipsis">{senderOf(e)}</bdi>
            <span className="ellipsis">
              {e.type === 'message.failed' && <span className="badge bad">failed</span>}
              {e.type === 'message.edited' && <span className="badge info">edited</span>} <bdi dir="auto">{textOf(e)}</bdi>
            </span>
            <RowLink target={{ to: '/events/$eventId', params: { eventId: e.id } }} className="small">
              Details
            </RowLink>
          </li>
        ))}
      </ul>
    </Card>
  );
}

export function Developers() {
  const qc = useQueryClient();
  const subs = useQuery({ queryKey: ['subscriptions'], queryFn: () => client.webhookSubscriptions.list() });
  // Named with its endpoint: with several, a secret shown alone could be stored for the wrong receiver.
  const [secret, setSecret] = useState<{ secret: string; url: string; rotated: boolean } | null>(null);
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<EventType[]>(['message.received']);
  const create = useMutation({
    mutationFn: (u: string) => client.webhookSubscriptions.create({ url: u, events }),
    onSuccess: (s) => {
      setSecret({ secret: s.secret, url: s.url, rotated: false });
      setUrl('');
      void qc.invalidateQueries({ queryKey: ['subscriptions'] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(url);
  };
  const hasInbox = subs.data?.some((s) => s.url === DEV_INBOX_URL);
  return (
    <Page title="Developers" subtitle="API credentials and webhook endpoints">
      <Credentials />
      <Card title="Webhook endpoints">
        {secret && (
          <SecretOnce
            secret={secret.secret}
            label={<>{secret.rotated ? 'New secret' : 'Secret'} of <span className="mono">{endpointName(secret.url)}</span>.</>}
            onDone={() => setSecret(null)}
          />
        )}
        <form className="row wrap" onSubmit={submit} aria-label="Add an endpoint">
          <label className="grow">
            Endpoint URL
            <input name="webhook_url" type="url" required placeholder="https://example.com/webhooks/blueline" value={url} onChange={(e) => setUrl(e.target.value)} />
          </label>
          <fieldset className="events-pick">
            <legend>Events</legend>
            {EVENT_TYPES.map((t) => (
              <label key={t} className="check">
                <input type="checkbox" checked={events.includes(t)} onChange={(e) => setEvents(e.target.checked ? [...events, t] : events.filter((x) => x !== t))} /> {t}
              </label>
            ))}
          </fieldset>
          <button className="btn primary" type="submit" disabled={create.isPending}>
            Add endpoint
          </button>
          {!hasInbox && (
            <button type="button" className="btn" onClick={() => create.mutate(DEV_INBOX_URL)}>
              Use dev inbox
            </button>
          )}
        </form>
        <ErrorBanner error={create.error ?? subs.error} />
        {subs.isPending && <Spinner />}
        {subs.data?.length === 0 && <Empty>No endpoints yet. Add one to receive message.received events.</Empty>}
        <ul className="endpoints">
          {subs.data?.map((s) => (
            <Endpoint key={s.id} sub={s} onSecret={setSecret} />
          ))}
        </ul>
      </Card>
      {hasInbox && <DevInbox />}
    </Page>
  );
}
