import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { client, describeError } from '../api.js';
import { Badge, Card, ErrorBanner, Notice, Page, Spinner, statusTone, time } from '../ui.js';

export function EventDetail() {
  const { eventId } = useParams({ strict: false }) as { eventId: string };
  const qc = useQueryClient();
  const event = useQuery({ queryKey: ['event', eventId], queryFn: () => client.events.get(eventId) });
  const subs = useQuery({ queryKey: ['subscriptions'], queryFn: () => client.webhookSubscriptions.list() });
  const [target, setTarget] = useState('');
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  async function replay() {
    setBusy(true);
    setOutcome(null);
    try {
      const r = await client.events.replay(eventId, target ? { subscriptionId: target } : {});
      setOutcome({ ok: true, text: `Replayed: the endpoint answered ${r.downstream_status}. ${r.message ?? ''}` });
    } catch (err) {
      setOutcome({ ok: false, text: describeError(err) });
    } finally {
      setBusy(false);
      void qc.invalidateQueries({ queryKey: ['event', eventId] });
    }
  }
  const e = event.data;
  return (
    <Page title="Event" subtitle={<Link to="/events">← All events</Link>}>
      <ErrorBanner error={event.error} />
      {!e ? (
        event.isPending && <Spinner />
      ) : (
        <>
          <Card title={<span className="mono">{e.id}</span>} actions={<Badge tone={statusTone(e.delivery.status)}>{e.delivery.status}</Badge>}>
            <dl className="kv">
              <dt>Type</dt>
              <dd>{e.type}</dd>
              <dt>Event id</dt>
              <dd className="mono">{e.event_id}</dd>
              <dt>Created</dt>
              <dd>{time(e.created_at)}</dd>
              <dt>Delivered</dt>
              <dd>{time(e.delivery.delivered_at)}</dd>
              <dt>Lead</dt>
              <dd className="mono">{e.lead_id ?? '—'}</dd>
            </dl>
            <div className="row wrap replay">
              <label>
                Replay to
                <select value={target} onChange={(x) => setTarget(x.target.value)}>
                  <option value="">All matching endpoints</option>
                  {subs.data?.map((s) => (
                    <option key={s.id} value={s.id}>{s.url}</option>
                  ))}
                </select>
              </label>
              <button type="button" className="btn primary" onClick={() => void replay()} disabled={busy}>
                {busy ? 'Replaying…' : 'Replay'}
              </button>
            </div>
            {outcome && <Notice kind={outcome.ok ? 'success' : 'warn'}>{outcome.text}</Notice>}
          </Card>
          <Card title={`Attempts (${e.delivery.attempts.length})`}>
            {e.delivery.attempts.length === 0 ? (
              <p className="muted">No delivery attempts yet.</p>
            ) : (
              <table className="table" aria-label="Attempts">
                <thead>
                  <tr>
                    <th scope="col">Time</th>
                    <th scope="col">Status</th>
                    <th scope="col">Duration</th>
                    <th scope="col">Endpoint</th>
                    <th scope="col">Response</th>
                  </tr>
                </thead>
                <tbody>
                  {e.delivery.attempts.map((a, i) => (
                    <tr key={i}>
                      <td className="nowrap">{time(a.at)}</td>
                      <td>
                        <Badge tone={a.status >= 200 && a.status < 300 ? 'good' : 'bad'}>{a.status || 'no answer'}</Badge>
                      </td>
                      <td>{Math.round(a.duration_ms)} ms</td>
                      <td className="mono small">{subs.data?.find((s) => s.id === a.subscription_id)?.url ?? a.subscription_id}</td>
                      <td className="mono small ellipsis max40">{a.error ?? ''}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </Card>
          <Card title="Envelope">
            <pre className="code" tabIndex={0} aria-label="Event envelope">{JSON.stringify(e.payload, null, 2)}</pre>
          </Card>
        </>
      )}
    </Page>
  );
}
