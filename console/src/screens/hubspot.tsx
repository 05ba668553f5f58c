/**
 * HubSpot: connect a portal (the install flow), the installs with their status and today's
 * HubSpot calls, each install's contact-creation auto-send template with a preview, and the
 * reply-push breaker; each install links to its texts contact by contact (hubspot-portal.tsx).
 * Shown only when the service has the integration configured (the API answers 404 otherwise).
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import type { HubSpotInstall, HubSpotStatus } from '@blueline/sdk';
import { client } from '../api.js';
import { ago, Badge, Card, Empty, ErrorBanner, Notice, Page, Spinner, time } from '../ui.js';

/**
 * A sample contact for the preview, rendered as the service renders a template (crm/hubspot/contact.ts):
 * `{{property}}` or `{{property|fallback}}`. A property the sample lacks shows its fallback, or
 * stays visible as-is (a real contact's own value goes there).
 */
const SAMPLE: Record<string, string> = { firstname: 'Alex', lastname: 'Rivera', company: 'Northwind', email: 'alex@example.com', jobtitle: 'Buyer', city: 'Oakland', mobilephone: '+14155550123', phone: '+14155550123' };
export const preview = (template: string) =>
  template.replace(/\{\{\s*([a-zA-Z0-9_]+)\s*(?:\|([^{}]*))?\}\}/g, (m, k: string, fallback: string | undefined) => SAMPLE[k.toLowerCase()] ?? fallback?.trim() ?? m);

const statusTone = { active: 'good', uninstalled: 'muted', token_invalid: 'bad' } as const;

/** Starts the install: HubSpot's consent page, where the user picks the portal (also the way back for a disconnected one). */
function ConnectAction({ label }: { label: string }) {
  const start = useMutation({ mutationFn: () => client.hubspot.startInstall() });
  return (
    <>
      <ErrorBanner error={start.error} />
      {start.data ? (
        <Notice>
          <a href={start.data.install_url} target="_blank" rel="noopener noreferrer" className="btn primary small">Continue in HubSpot</a>{' '}
          The link expires {ago(start.data.expires_at)}.
        </Notice>
      ) : (
        <button type="button" className="btn primary" onClick={() => start.mutate()} disabled={start.isPending}>
          {start.isPending ? 'Preparing…' : label}
        </button>
      )}
    </>
  );
}

function Connect() {
  return (
    <Card title="Connect HubSpot">
      <p className="muted">Opens HubSpot's consent page, where you pick the portal to connect. The link works once and expires in 10 minutes.</p>
      <ConnectAction label="Connect HubSpot" />
    </Card>
  );
}

function AutoSend({ install }: { install: HubSpotInstall }) {
  const qc = useQueryClient();
  const [template, setTemplate] = useState(install.auto_send.template ?? '');
  const [enabled, setEnabled] = useState(install.auto_send.enabled);
  useEffect(() => {
    setTemplate(install.auto_send.template ?? '');
    setEnabled(install.auto_send.enabled);
  }, [install.auto_send.template, install.auto_send.enabled]);
  const save = useMutation({
    mutationFn: () => client.hubspot.update(install.portal_id, { auto_send: { enabled, template } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['hubspot'] }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <form onSubmit={submit} className="stack" aria-label={`Auto-send for portal ${install.portal_id}`}>
      <div className="grid2">
        <label>
          Message when a contact is created
          <textarea name="template" rows={4} value={template} onChange={(e) => setTemplate(e.target.value)} placeholder="Hi {{firstname}}, thanks for reaching out!" />
        </label>
        <div>
          <span className="muted small">Preview (sample contact Alex Rivera)</span>
          <div className="preview-bubble" aria-live="polite" data-testid="template-preview">
            {template ? preview(template) : <span className="muted">Type a template to see the message.</span>}
          </div>
        </div>
      </div>
      <div className="row">
        <label className="check">
          <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Send automatically to new contacts
        </label>
        <button className="btn primary small" type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save auto-send'}
        </button>
      </div>
      <ErrorBanner error={save.error} />
      {save.isSuccess && <Notice kind="success">Auto-send saved.</Notice>}
    </form>
  );
}

/** Workflow actions refused only for time: sent when allowed, then HubSpot is told (counted once there was one), and the way to every contact's texts. */
function HeldActions({ portalId, held: h }: { portalId: string; held: HubSpotInstall['held_actions'] }) {
  return (
    <>
      {h.held + h.completing + h.completed + h.abandoned > 0 && (
        <p className="muted">
          Workflow actions held for time: {h.held} waiting{h.next_attempt_at && <> (next try {time(h.next_attempt_at)})</>}, {h.completing} being reported to HubSpot, {h.completed} done, {h.abandoned} given up.
        </p>
      )}
      <p className="row">
        <Link to="/hubspot/$portalId" params={{ portalId }} className="btn small">
          Texts by contact<span className="sr-only"> for portal {portalId}</span>
        </Link>
        <span className="muted small">who was texted, who waits and why, what failed</span>
      </p>
    </>
  );
}

/** What a disconnect stops, asked before it (the console's confirmation, as for secret rotations and endpoint deletions). */
const disconnectQuestion = (portalId: string) =>
  `Disconnect HubSpot portal ${portalId}?\n\n` +
  'Texts from HubSpot stop: the contact card, the workflow action and the auto-send to new contacts. ' +
  'Replies are no longer logged on HubSpot timelines. The app is removed from the HubSpot portal. ' +
  'The conversations stay in Blueline.';

type Uninstalled = Awaited<ReturnType<typeof client.hubspot.uninstall>>;

/** The outcome of a disconnect, focused when it appears (the button that was focused is gone with it). */
function Disconnected({ result }: { result: Uninstalled }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => box.current?.focus(), [result]);
  const id = result.install.portal_id;
  return (
    <div ref={box} tabIndex={-1} className="outcome" data-testid="disconnect-outcome">
      {result.already_uninstalled ? (
        // Another tab or an API call got there first: nothing was done now, so nothing to ask of HubSpot's admin either.
        <Notice>This portal was already disconnected (in another tab or through the API). Nothing more was done. The conversations stay in Blueline.</Notice>
      ) : result.app_removed ? (
        <Notice kind="success">Disconnected. The app was removed from HubSpot portal {id}. The conversations stay in Blueline.</Notice>
      ) : (
        <Notice kind="warn">
          Disconnected here, but HubSpot could not be told. An admin of HubSpot portal {id} should remove the app in HubSpot: Settings → Integrations → Connected apps. The conversations stay in Blueline.
        </Notice>
      )}
    </div>
  );
}

function Install({ install }: { install: HubSpotInstall }) {
  const c = install.calls_today;
  const qc = useQueryClient();
  const disconnect = useMutation({
    mutationFn: () => client.hubspot.uninstall(install.portal_id),
    onSuccess: (r) => {
      // The card turns uninstalled at once; the refetch brings the rest.
      qc.setQueryData<HubSpotStatus | null>(['hubspot'], (s) => s && { ...s, installs: s.installs.map((i) => (i.portal_id === r.install.portal_id ? r.install : i)) });
      void qc.invalidateQueries({ queryKey: ['hubspot'] });
    },
  });
  const uninstalled = install.status === 'uninstalled';
  return (
    <Card
      className="install"
      title={
        <>
          Portal <span className="mono">{install.portal_id}</span>{' '}
          <Badge tone={statusTone[install.status]}>{install.status.replace('_', ' ')}</Badge> {install.sandbox && <Badge tone="muted">{install.account_type.toLowerCase()}</Badge>}
        </>
      }
      actions={<span className="muted small">installed {time(install.installed_at)}</span>}
    >
      {disconnect.data && uninstalled && <Disconnected result={disconnect.data} />}
      {uninstalled && (
        <div className="stack reconnect">
          <p>This portal is disconnected: nothing is texted from HubSpot and replies are not logged there. To turn HubSpot back on, connect it again and pick portal <span className="mono">{install.portal_id}</span> on HubSpot's page.</p>
          <div>
            <ConnectAction label="Connect HubSpot again" />
          </div>
        </div>
      )}
      {install.status === 'token_invalid' && <Notice kind="warn">HubSpot refused this portal's token. Connect it again to restore sends and reply push.</Notice>}
      {install.first_touch_cap_reached_today && !uninstalled && <Notice kind="warn">The project's daily first-touch cap is reached: new contacts are not texted until tomorrow.</Notice>}
      <h3 className="subhead first">HubSpot calls today</h3>
      {/* Focusable: at phone width it scrolls sideways, and a keyboard must be able to scroll it. */}
      <table className="table compact" aria-label={`HubSpot calls today for portal ${install.portal_id}`} tabIndex={0}>
        <thead>
          <tr>
            <th scope="col">Card loads</th>
            <th scope="col">Card sends</th>
            <th scope="col">New contacts</th>
            <th scope="col">Reply pushes</th>
            <th scope="col">Workflow completions</th>
            <th scope="col">Token refreshes</th>
            <th scope="col">Counted today</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <td>{c.sidebar_load}</td>
            <td>{c.sidebar_send}</td>
            <td>{c.contact_created}</td>
            <td>{c.reply_push}</td>
            <td>{c.workflow_callback}</td>
            <td>{c.token_refresh}</td>
            <td><strong>{c.total_counted}</strong></td>
          </tr>
        </tbody>
      </table>
      <HeldActions portalId={install.portal_id} held={install.held_actions} />
      {!uninstalled && (
        <>
          <h3 className="subhead">Auto-send</h3>
          <AutoSend install={install} />
          <h3 className="subhead">Disconnect</h3>
          <div className="stack disconnect">
            <p className="muted">Stops texts from HubSpot and removes the app from the portal. The conversations stay in Blueline.</p>
            <ErrorBanner error={disconnect.error} />
            <button
              type="button"
              className="btn small danger"
              aria-disabled={disconnect.isPending}
              onClick={() => {
                // Not disabled while pending: a disabled button drops the focus, and an error leaves it here.
                if (!disconnect.isPending && confirm(disconnectQuestion(install.portal_id))) disconnect.mutate();
              }}
            >
              {disconnect.isPending ? 'Disconnecting…' : 'Disconnect'}
              <span className="sr-only"> portal {install.portal_id}</span>
            </button>
          </div>
        </>
      )}
    </Card>
  );
}

function Breaker({ s }: { s: HubSpotStatus }) {
  const open = s.breaker.state === 'open';
  return (
    <Card title="Reply push" actions={<Badge tone={open ? 'bad' : 'good'}>{open ? 'breaker open' : 'breaker closed'}</Badge>}>
      <p className="muted">Replies from contacts texted through HubSpot are logged on their timeline. Five failed pushes in a row open the breaker; one probe push per run closes it again.</p>
      <dl className="kv">
        <dt>Waiting to push</dt>
        <dd>{s.push_backlog}</dd>
        <dt>Last push</dt>
        <dd>{s.last_push_at ? ago(s.last_push_at) : 'never'}</dd>
        <dt>Failures in a row</dt>
        <dd>{s.breaker.consecutive_failures}</dd>
        {open && (
          <>
            <dt>Open since</dt>
            <dd>{time(s.breaker.opened_at)}</dd>
          </>
        )}
        {s.breaker.last_error && (
          <>
            <dt>Last error</dt>
            <dd className="mono">{s.breaker.last_error}</dd>
          </>
        )}
      </dl>
    </Card>
  );
}

export function HubSpot() {
  const status = useQuery({ queryKey: ['hubspot'], queryFn: () => client.hubspot.status() });
  const s = status.data;
  return (
    <Page title="HubSpot" subtitle="Text HubSpot contacts from their record, from workflows and when they are created">
      <ErrorBanner error={status.error} />
      {status.isPending ? (
        <Spinner />
      ) : s === null ? (
        <Card title="Not configured">
          <p className="muted">This service has no HubSpot app configured. Your operator sets <code>HUBSPOT_CLIENT_ID</code> and <code>HUBSPOT_CLIENT_SECRET</code> to turn the integration on.</p>
        </Card>
      ) : s ? (
        <div className="stack">
          <Connect />
          {s.installs.length === 0 ? (
            <Card title="Installs">
              <Empty>No portal connected yet.</Empty>
            </Card>
          ) : (
            s.installs.map((i) => <Install key={i.portal_id} install={i} />)
          )}
          <Breaker s={s} />
        </div>
      ) : null}
    </Page>
  );
}
