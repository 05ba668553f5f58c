/** The simulator: a simulated iPhone per line, its device log and an "inject inbound message" form. */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { client } from '../../api.js';
import { Badge, Card, Empty, ErrorBanner, Page, time } from '../../ui.js';
import { useAction, useLines } from './shared.js';

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

export function Simulator() {
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

