/** Accounts: who holds signing secrets; create, verify email, rotate the secret. */
import { client } from '../../api.js';
import { Badge, Card, ErrorBanner, Page } from '../../ui.js';
import { useAccounts, useAction, useTenants } from './shared.js';

const OVERLAP_HOURS = 24;
type Account = Awaited<ReturnType<typeof client.admin.listAccounts>>['accounts'][number];

export function Accounts() {
  const accounts = useAccounts();
  const tenants = useTenants();
  const { run, submit, feedback, setSecret } = useAction();
  const create = submit(async (f) => {
    const name = String(f.get('name'));
    const r = await client.admin.createAccount({ name, multi_tenant: f.get('multi_tenant') === 'on' });
    setSecret({ value: r.signing_secret, label: <>Account {name} created.</> });
  });
  // Asked first, as the Developers screen asks before its rotation: every tenant of the account
  // signs with this secret, and the one it replaces stops after the overlap.
  const rotate = (a: Account) => {
    const slugs = tenants.data?.tenants.filter((t) => t.account_id === a.id).map((t) => t.slug) ?? [];
    const signs = slugs.length ? ` It signs for ${slugs.join(', ')}.` : '';
    if (!confirm(`Issue a new signing secret for ${a.name}?${signs} The old one keeps working for ${OVERLAP_HOURS} hours.`)) return;
    void run(async () => {
      const r = await client.admin.rotateAccountSecret(a.id, { overlap_hours: OVERLAP_HOURS });
      setSecret({ value: r.signing_secret, label: <>Secret of {a.name} rotated: the old one keeps working for {OVERLAP_HOURS} hours.</> });
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
                <td>
                  <div className="row">
                    {!a.multi_tenant && (
                      <button type="button" className="btn small" onClick={() => void run(() => client.admin.updateAccount(a.id, { multi_tenant: true }), `${a.name} may now hold more than one tenant.`)}>
                        Allow more tenants<span className="sr-only"> for {a.name}</span>
                      </button>
                    )}
                    {!a.email_verified && (
                      <button type="button" className="btn small" onClick={() => void run(() => client.admin.updateAccount(a.id, { email_verified: true }), 'Email marked verified.')}>
                        Verify email<span className="sr-only"> of {a.name}</span>
                      </button>
                    )}
                    <button type="button" className="btn small" onClick={() => rotate(a)}>
                      Rotate secret<span className="sr-only"> of {a.name}</span>
                    </button>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Card>
    </Page>
  );
}
