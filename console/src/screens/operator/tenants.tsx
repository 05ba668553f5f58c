/** Tenants: create, suspend/resume, limits at a glance, CRM install slots. */
import { useState, type FormEvent, type ReactNode } from 'react';
import { client } from '../../api.js';
import { Badge, Card, ErrorBanner, Page, Spinner, statusTone } from '../../ui.js';
import { useAccounts, useAction, useTenants } from './shared.js';

/** Production HubSpot portals the tenant may connect (sandbox portals take none). */
function CrmSlots({ slug, slots, run }: { slug: string; slots: number; run: (fn: () => Promise<unknown>, done?: ReactNode) => Promise<void> }) {
  const [value, setValue] = useState(String(slots));
  const save = (e: FormEvent) => {
    e.preventDefault();
    void run(() => client.admin.updateTenant(slug, { crm_install_slots: Number(value) }), `${slug} may now connect ${value} HubSpot portal(s).`);
  };
  return (
    <form className="row" onSubmit={save} aria-label={`CRM install slots for ${slug}`}>
      <input className="narrow" type="number" min={0} max={1000} value={value} onChange={(e) => setValue(e.target.value)} aria-label={`CRM install slots for ${slug}`} />
      {value !== String(slots) && <button className="btn small" type="submit">Save</button>}
    </form>
  );
}

export function Tenants() {
  const tenants = useTenants();
  const accounts = useAccounts();
  const { run, submit, feedback } = useAction();
  const create = submit(
    (f) => client.admin.createTenant({ account_id: String(f.get('account_id')), slug: String(f.get('slug')), name: String(f.get('name') || f.get('slug')) }),
    'Tenant created.',
  );
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
            {/* The API's rule (inner dashes only); valid under the v flag browsers now compile patterns with. */}
            <input name="slug" required maxLength={63} pattern="[a-z0-9]+(-[a-z0-9]+)*" title="lowercase letters, digits and inner dashes" placeholder="acme" />
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

