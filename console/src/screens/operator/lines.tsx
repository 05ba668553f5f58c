/** Lines: add (simulator or BlueBubbles), assign to a tenant, turn on/off; health and service epoch. */
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { AdminLineHealth, Req, Res } from '@blueline/sdk';
import { client } from '../../api.js';
import { Badge, Card, Empty, ErrorBanner, Page, ago } from '../../ui.js';
import { useAction, useLines, useTenants } from './shared.js';

type Driver = NonNullable<Req<'/admin/v1/lines', 'post'>['driver']>;
const DRIVERS: readonly { driver: Driver; name: string }[] = [
  { driver: 'simulator', name: 'Simulator' },
  { driver: 'bluebubbles', name: 'BlueBubbles' },
];
const driverOf = (value: string) => DRIVERS.find((d) => d.driver === value)?.driver;

const HEALTH_TONE: Record<AdminLineHealth['state'], string> = { up: 'good', down: 'bad', unknown: 'warn', inactive: 'muted' };

/** The line's state checked now (its Mac asked, for a BlueBubbles line), and its service epoch. */
function Health({ id, phone }: { id: string; phone: string }) {
  const health = useQuery({ queryKey: ['admin', 'line-health', id], queryFn: () => client.admin.lineHealth(id), refetchInterval: 30_000 });
  const h = health.data;
  return (
    <div className="health" data-health={h?.state ?? 'checking'}>
      <div className="row">
        {h ? <Badge tone={HEALTH_TONE[h.state]}>{h.state}</Badge> : <span className="muted small">{health.error ? 'check failed' : 'checking…'}</span>}
        <button type="button" className="btn small" disabled={health.isFetching} onClick={() => void health.refetch()}>
          Check<span className="sr-only"> {phone}</span>
        </button>
      </div>
      {h?.reason && <div className="muted small">{h.reason}</div>}
      <div className="muted small" title={h ? `checked ${ago(h.checked_at)}; ${h.service_epoch_source === 'recorded' ? 'the last epoch the line named' : 'named by the line just now'}` : undefined}>
        epoch <span className="mono" data-testid="service-epoch">{h?.service_epoch ?? '—'}</span>
      </div>
    </div>
  );
}

type Line = Res<'/admin/v1/lines', 'get'>['phone_lines'][number];
type Tenant = Res<'/admin/v1/tenants', 'get'>['tenants'][number];

/**
 * Moving a line to another project: the select only picks (a keyboard user browses it with the
 * arrows), "Move" applies the pick after asking, in words that name the line and both projects.
 */
function Assign({ line, tenants, run }: { line: Line; tenants: readonly Tenant[]; run: ReturnType<typeof useAction>['run'] }) {
  const qc = useQueryClient();
  const [picked, setPicked] = useState(line.tenant);
  const named = (slug: string) => {
    const t = tenants.find((x) => x.slug === slug);
    return t && t.name !== slug ? `${t.name} (${slug})` : slug;
  };
  const move = () => {
    if (picked === line.tenant) return;
    if (!confirm(`Move line ${line.phone_number} from ${named(line.tenant)} to ${named(picked)}? From now on it sends and receives for ${named(picked)}, no longer for ${named(line.tenant)}.`)) return;
    // Said once the list shows it (the row's pick starts again from the line's new project).
    const moved = async () => {
      await client.admin.updateLine(line.phone_line_id, { tenant: picked });
      await qc.invalidateQueries({ queryKey: ['admin', 'lines'] });
    };
    void run(moved, `${line.phone_number} moved to ${named(picked)}.`);
  };
  return (
    <div className="row">
      <label>
        <span className="sr-only">Tenant for {line.phone_number}</span>
        <select value={picked} onChange={(e) => setPicked(e.target.value)}>
          {tenants.map((t) => (
            <option key={t.id} value={t.slug}>{t.slug}</option>
          ))}
        </select>
      </label>
      <button type="button" className="btn small" disabled={picked === line.tenant} onClick={move}>
        Move<span className="sr-only"> {line.phone_number}</span>
      </button>
    </div>
  );
}

export function Lines() {
  const lines = useLines();
  const tenants = useTenants();
  const { run, submit, feedback } = useAction();
  const [driver, setDriver] = useState<Driver>('simulator');
  const create = submit(
    (f) =>
      client.admin.createLine({
        tenant: String(f.get('tenant')),
        phone_number: String(f.get('phone_number')),
        driver,
        ...(driver === 'bluebubbles' && { driver_config: { url: String(f.get('bb_url')), password: String(f.get('bb_password')) } }),
      }),
    'Line added.',
  );
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
            <select name="driver" value={driver} onChange={(e) => setDriver(driverOf(e.target.value) ?? 'simulator')}>
              {DRIVERS.map((d) => (
                <option key={d.driver} value={d.driver}>{d.name}</option>
              ))}
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
              <th scope="col">Health / service epoch</th>
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
                    <button type="button" className="btn small" onClick={() => void run(() => client.admin.updateLine(l.phone_line_id, { is_active: !l.is_active }), `${l.phone_number} ${l.is_active ? 'deactivated' : 'activated'}.`)}>
                      {l.is_active ? 'Deactivate' : 'Activate'}
                      <span className="sr-only"> {l.phone_number}</span>
                    </button>
                  </div>
                </td>
                <td>
                  <Health id={l.phone_line_id} phone={l.phone_number} />
                </td>
                <td>
                  <Assign key={l.tenant} line={l} tenants={tenants.data?.tenants ?? []} run={run} />
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

