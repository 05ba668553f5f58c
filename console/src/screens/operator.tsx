/** The operator's screens: tenants, accounts, lines, and the simulator (device log, inject inbound). */
import { useState, type FormEvent, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useParams } from '@tanstack/react-router';
import { client, describeError } from '../api.js';
import { Badge, Card, CopyButton, Empty, ErrorBanner, Notice, Page, Spinner, statusTone, time } from '../ui.js';

const useAccounts = () => useQuery({ queryKey: ['admin', 'accounts'], queryFn: () => client.admin.listAccounts() });
const useTenants = () => useQuery({ queryKey: ['admin', 'tenants'], queryFn: () => client.admin.listTenants() });
const useLines = () => useQuery({ queryKey: ['admin', 'lines'], queryFn: () => client.admin.listLines() });

function useAction() {
  const qc = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<ReactNode>(null);
  const run = async (fn: () => Promise<unknown>, done?: ReactNode) => {
    setError(null);
    setNote(null);
    try {
      await fn();
      if (done) setNote(done);
      await qc.invalidateQueries({ queryKey: ['admin'] });
    } catch (err) {
      setError(describeError(err));
    }
  };
  const feedback = (
    <>
      {error && <div className="banner error" role="alert">{error}</div>}
      {note && <Notice kind="success">{note}</Notice>}
    </>
  );
  return { run, feedback, setNote };
}

/** One device-log entry in words (recipient and text or file names); every field on hover. */
function DeviceEntry({ entry }: { entry: Record<string, unknown> }) {
  const rest = Object.fromEntries(Object.entries(entry).filter(([k]) => !['id', 'kind', 'at'].includes(k)));
  const to = [rest.to, rest.chat_guid, rest.chat].find((v) => typeof v === 'string') as string | undefined;
  const text = [rest.text, rest.body, rest.message].find((v) => typeof v === 'string') as string | undefined;
  const files = JSON.stringify(rest).match(/"(?:filename|name)":"([^"]+)"/g)?.map((m) => m.split('":"')[1]!.slice(0, -1)) ?? [];
  const words = [text && `“${text}”`, files.length > 0 && files.join(', ')].filter(Boolean).join(' · ');
  return (
    <span className="ellipsis" title={JSON.stringify(rest)}>
      {to && <span className="mono">{to}</span>} {words ? <span>{to ? '→ ' : ''}{words}</span> : <code className="mono small muted">{JSON.stringify(rest)}</code>}
    </span>
  );
}

function Secret({ value }: { value: string }) {
  return (
    <span className="secret-once inline">
      <strong>New signing secret (shown once):</strong> <code className="mono">{value}</code> <CopyButton text={value} />
    </span>
  );
}

/** Production HubSpot portals the tenant may connect (sandbox portals take none). */
function CrmSlots({ slug, slots, run }: { slug: string; slots: number; run: (fn: () => Promise<unknown>, done?: ReactNode) => Promise<void> }) {
  const [value, setValue] = useState(String(slots));
  const save = (e: FormEvent) => {
    e.preventDefault();
    void run(() => client.admin.updateTenant(slug, { crm_install_slots: Number(value) } as never), `${slug} may now connect ${value} HubSpot portal(s).`);
  };
  return (
    <form className="row" onSubmit={save} aria-label={`CRM install slots for ${slug}`}>
      <input className="narrow" type="number" min={0} max={1000} value={value} onChange={(e) => setValue(e.target.value)} aria-label={`CRM install slots for ${slug}`} />
      {value !== String(slots) && <button className="btn small" type="submit">Save</button>}
    </form>
  );
}

function Tenants() {
  const tenants = useTenants();
  const accounts = useAccounts();
  const { run, feedback } = useAction();
  const create = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const form = e.currentTarget;
    void run(async () => {
      await client.admin.createTenant({ account_id: String(f.get('account_id')), slug: String(f.get('slug')), name: String(f.get('name') || f.get('slug')) } as never);
      form.reset();
    }, 'Tenant created.');
  };
  return (
    <Page title="Tenants" subtitle="Projects, their limits and state">
      <Card title="New tenant">
        <form className="row wrap" onSubmit={create} aria-label="Create a tenant">
          <label>
            Account
            <select name="account_id" required>
              {accounts.data?.accounts.map((a) => (
                <option key={a.id} value={a.id}>{a.name} ({a.id})</option>
              ))}
            </select>
          </label>
          <label>
            Slug
            <input name="slug" required pattern="[a-z0-9][a-z0-9-]*" placeholder="acme" />
          </label>
          <label>
            Name
            <input name="name" placeholder="Acme Inc." />
          </label>
          <button className="btn primary" type="submit">Create tenant</button>
        </form>
        {feedback}
      </Card>
      <Card title="All tenants">
        <ErrorBanner error={tenants.error} />
        {tenants.isPending && <Spinner />}
        <table className="table" aria-label="Tenants">
          <thead>
            <tr>
              <th scope="col">Tenant</th>
              <th scope="col">Status</th>
              <th scope="col">Time zone / window</th>
              <th scope="col">Daily cap</th>
              <th scope="col">Rate limit</th>
              <th scope="col">CRM install slots</th>
              <th scope="col"><span className="sr-only">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            {tenants.data?.tenants.map((t) => (
              <tr key={t.id} data-tenant={t.slug}>
                <td>
                  <strong>{t.name}</strong>
                  <div className="mono muted small">{t.slug}</div>
                </td>
                <td><Badge tone={statusTone(t.status)}>{t.status}</Badge></td>
                <td>{t.timezone} · {t.sending_window.start}–{t.sending_window.end}</td>
                <td>{t.daily_first_touch_cap}</td>
                <td>{t.rate_limit.per_second}/s · {t.rate_limit.burst}</td>
                <td>
                  <CrmSlots slug={t.slug} slots={t.crm_install_slots} run={run} />
                </td>
                <td>
                  <button type="button" className="btn small" onClick={() => void run(() => client.admin.updateTenant(t.slug, { status: t.status === 'active' ? 'suspended' : 'active' }), `Tenant ${t.slug} ${t.status === 'active' ? 'suspended' : 'resumed'}.`)}>
                    {t.status === 'active' ? 'Suspend' : 'Resume'}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Card>
    </Page>
  );
}

function Accounts() {
  const accounts = useAccounts();
  const { run, feedback, setNote } = useAction();
  const create = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const form = e.currentTarget;
    void run(async () => {
      const r = await client.admin.createAccount({ name: String(f.get('name')), multi_tenant: f.get('multi_tenant') === 'on' });
      form.reset();
      setNote(<Secret value={r.signing_secret} />);
    });
  };
  return (
    <Page title="Accounts" subtitle="Who holds signing secrets">
      <Card title="New account">
        <form className="row wrap" onSubmit={create} aria-label="Create an account">
          <label>
            Name
            <input name="name" required placeholder="Acme Inc." />
          </label>
          <label className="check">
            <input type="checkbox" name="multi_tenant" /> Multi-tenant
          </label>
          <button className="btn primary" type="submit">Create account</button>
        </form>
        {feedback}
      </Card>
      <Card title="All accounts">
        <ErrorBanner error={accounts.error} />
        <table className="table" aria-label="Accounts">
          <thead>
            <tr>
              <th scope="col">Account</th>
              <th scope="col">Kind</th>
              <th scope="col">Email</th>
              <th scope="col"><span className="sr-only">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            {accounts.data?.accounts.map((a) => (
              <tr key={a.id}>
                <td>
                  <strong>{a.name}</strong>
                  <div className="mono muted small">{a.id}</div>
                </td>
                <td>{a.multi_tenant ? 'multi-tenant' : 'single tenant'}</td>
                <td>{a.email_verified ? <Badge tone="good">verified</Badge> : <Badge tone="warn">unverified</Badge>}</td>
                <td className="row">
                  {!a.email_verified && (
                    <button type="button" className="btn small" onClick={() => void run(() => client.admin.updateAccount(a.id, { email_verified: true }), 'Email marked verified.')}>
                      Verify email
                    </button>
                  )}
                  <button type="button" className="btn small" onClick={() => void run(async () => setNote(<Secret value={(await client.admin.rotateAccountSecret(a.id, { overlap_hours: 24 })).signing_secret} />))}>
                    Rotate secret
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Card>
    </Page>
  );
}

function Lines() {
  const lines = useLines();
  const tenants = useTenants();
  const { run, feedback } = useAction();
  const [driver, setDriver] = useState('simulator');
  const create = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const form = e.currentTarget;
    void run(async () => {
      await client.admin.createLine({
        tenant: String(f.get('tenant')),
        phone_number: String(f.get('phone_number')),
        driver: driver as never,
        ...(driver === 'bluebubbles' && { driver_config: { url: String(f.get('bb_url')), password: String(f.get('bb_password')) } }),
      });
      form.reset();
    }, 'Line added.');
  };
  return (
    <Page title="Lines" subtitle="Phone lines, their drivers and tenants">
      <Card title="Add a line">
        <form className="row wrap" onSubmit={create} aria-label="Add a line">
          <label>
            Tenant
            <select name="tenant" required>
              {tenants.data?.tenants.map((t) => (
                <option key={t.id} value={t.slug}>{t.slug}</option>
              ))}
            </select>
          </label>
          <label>
            Phone number
            <input name="phone_number" required placeholder="+14155550123" />
          </label>
          <label>
            Driver
            <select name="driver" value={driver} onChange={(e) => setDriver(e.target.value)}>
              <option value="simulator">Simulator</option>
              <option value="bluebubbles">BlueBubbles</option>
            </select>
          </label>
          {driver === 'bluebubbles' && (
            <>
              <label>
                Server URL
                <input name="bb_url" type="url" required placeholder="https://mac.example.com:1234" />
              </label>
              <label>
                Password
                <input name="bb_password" type="password" required />
              </label>
            </>
          )}
          <button className="btn primary" type="submit">Add line</button>
        </form>
        {feedback}
      </Card>
      <Card title="All lines">
        <ErrorBanner error={lines.error} />
        <table className="table" aria-label="Lines">
          <thead>
            <tr>
              <th scope="col">Number</th>
              <th scope="col">Tenant</th>
              <th scope="col">Driver</th>
              <th scope="col">Capabilities</th>
              <th scope="col">State</th>
              <th scope="col">Assigned to</th>
            </tr>
          </thead>
          <tbody>
            {lines.data?.phone_lines.map((l) => (
              <tr key={l.phone_line_id} data-line={l.phone_number}>
                <td className="mono">{l.phone_number}</td>
                <td>{l.tenant}</td>
                <td>{l.driver}</td>
                <td>{l.capabilities.join(', ')}</td>
                <td>
                  <div className="row">
                    <Badge tone={l.is_active ? 'good' : 'bad'}>{l.is_active ? 'active' : 'inactive'}</Badge>
                    <button type="button" className="btn small" onClick={() => void run(() => client.admin.updateLine(l.phone_line_id, { is_active: !l.is_active } as never), `${l.phone_number} ${l.is_active ? 'deactivated' : 'activated'}.`)}>
                      {l.is_active ? 'Deactivate' : 'Activate'}
                      <span className="sr-only"> {l.phone_number}</span>
                    </button>
                  </div>
                </td>
                <td>
                  <label>
                    <span className="sr-only">Assign {l.phone_number} to tenant</span>
                    <select value={l.tenant} onChange={(e) => void run(() => client.admin.updateLine(l.phone_line_id, { tenant: e.target.value } as never), 'Line reassigned.')}>
                      {tenants.data?.tenants.map((t) => (
                        <option key={t.id} value={t.slug}>{t.slug}</option>
                      ))}
                    </select>
                  </label>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {lines.data && lines.data.phone_lines.length === 0 && <Empty>No lines yet: add a simulator line above to try the service.</Empty>}
      </Card>
    </Page>
  );
}

function Simulator() {
  const lines = useLines();
  const sims = lines.data?.phone_lines.filter((l) => l.driver === 'simulator') ?? [];
  const [lineId, setLineId] = useState('');
  const current = lineId || sims[0]?.phone_line_id || '';
  const log = useQuery({ queryKey: ['admin', 'sent', current], queryFn: () => client.admin.simulatorSent(current), enabled: !!current, refetchInterval: 3_000 });
  const { run, feedback } = useAction();
  const inject = useMutation({ mutationFn: (b: { from: string; text: string }) => client.admin.simulatorInbound(current, b) });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const form = e.currentTarget;
    void run(async () => {
      await inject.mutateAsync({ from: String(f.get('from')), text: String(f.get('text')) });
      (form.elements.namedItem('text') as HTMLInputElement).value = '';
    }, 'Inbound message injected.');
  };
  return (
    <Page title="Simulator" subtitle="A simulated iPhone per line: what it sent, and messages it receives">
      <Card
        title="Line"
        actions={
          <label>
            <span className="sr-only">Simulator line</span>
            <select value={current} onChange={(e) => setLineId(e.target.value)} aria-label="Simulator line">
              {sims.map((l) => (
                <option key={l.phone_line_id} value={l.phone_line_id}>{l.phone_number} · {l.tenant}</option>
              ))}
            </select>
          </label>
        }
      >
        {sims.length === 0 && <Empty>No simulator lines.</Empty>}
        <form className="row wrap" onSubmit={submit} aria-label="Inject an inbound message">
          <label>
            From
            <input name="from" required defaultValue="+14155550142" />
          </label>
          <label className="grow">
            Text
            <input name="text" required placeholder="Hi! Is this still available?" />
          </label>
          <button className="btn primary" type="submit" disabled={!current}>Inject inbound message</button>
        </form>
        {feedback}
      </Card>
      <Card title="Device log">
        <ErrorBanner error={log.error} />
        {log.data?.sent.length === 0 && <Empty>The device has not sent anything yet.</Empty>}
        <ol className="devlog" aria-label="Device log">
          {log.data?.sent.map((s) => (
            <li key={s.id} className="devlog-row" data-kind={s.kind}>
              <span className="mono muted small">{time(s.at)}</span>
              <Badge>{s.kind}</Badge>
              <DeviceEntry entry={s} />
            </li>
          ))}
        </ol>
      </Card>
    </Page>
  );
}

export default function Operator() {
  const { section } = useParams({ strict: false }) as { section: string };
  if (section === 'accounts') return <Accounts />;
  if (section === 'lines') return <Lines />;
  if (section === 'simulator') return <Simulator />;
  return <Tenants />;
}
