/** Accounts: who holds signing secrets; create, verify email, rotate the secret. */
import { client } from '../../api.js';
import { Badge, Card, ErrorBanner, Page } from '../../ui.js';
import { Secret, useAccounts, useAction } from './shared.js';

export function Accounts() {
  const accounts = useAccounts();
  const { run, submit, feedback, setNote } = useAction();
  const create = submit(async (f) => {
    const r = await client.admin.createAccount({ name: String(f.get('name')), multi_tenant: f.get('multi_tenant') === 'on' });
    setNote(<Secret value={r.signing_secret} />);
  });
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
                        Verify email
                      </button>
                    )}
                    <button type="button" className="btn small" onClick={() => void run(async () => setNote(<Secret value={(await client.admin.rotateAccountSecret(a.id, { overlap_hours: 24 })).signing_secret} />))}>
                      Rotate secret
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

